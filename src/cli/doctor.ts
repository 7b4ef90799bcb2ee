import type { Command } from 'commander';
import { closeEngines, type EngineStatus, probeEngines, resetEngineCache } from '../engine/registry.js';
import { EXIT } from '../errors/exit-codes.js';
import { FONT_PACKAGE_NAMES } from '../fonts/catalog.js';
import { checkFonts, type FontReport } from '../fonts/check.js';
import { resetCatalog } from '../plan/index.js';
import { describeConfinement, engineConfinement } from '../run/confine.js';
import { installedOcrLanguages, resetOcrLanguages } from '../run/ocr-languages.js';
import { engineSandbox } from '../run/sandbox.js';
import { formatRow, runSelftest, type SelftestReport } from '../selftest/index.js';
import { webhookSecretStatus } from '../server/access/secrets.js';
import { exitWithUsageCode, interruptSignal } from './convert-io.js';
import { ensureEngineAccount } from './doctor-account.js';
import {
  aptInstall,
  aptInstallLine,
  missingPackages,
  ocrLanguagePackages,
  SANDBOX_PACKAGES,
  TEST_TOOL_PACKAGES,
} from './doctor-apt.js';

interface DoctorFlags {
  json?: boolean;
  install?: boolean;
  withTestTools?: boolean;
  selftest?: boolean;
  only?: string;
  ocrLangs?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('doctor')
    .description('Check which engines are installed; install missing ones; self-test every conversion.')
    .option('--json', 'print JSON')
    .option('--install', 'install missing engine and font packages with apt-get (as root)')
    .option('--with-test-tools', `with --install, also install test tools (${TEST_TOOL_PACKAGES.join(', ')})`)
    .option('--selftest', 'convert a generated sample for every catalog pair and check the output')
    .option('--only <filter>', 'self-test only these families or keys (comma-separated)')
    .option(
      '--ocr-langs <codes>',
      'with --install, also install these Tesseract OCR languages (comma-separated codes: fra,spa,chi_sim)',
    )
    .addHelpText('after', '\nExit codes: 0 all engines and fonts found (and self-test passed), 1 otherwise.')
    .action(async (flags: DoctorFlags) => {
      process.exitCode = await doctorCommand(flags).finally(closeEngines);
    });
  exitWithUsageCode(cmd);
}

function engineJson({ converter, probe }: EngineStatus) {
  return {
    name: converter.name,
    ok: probe.ok,
    version: probe.version ?? null,
    path: probe.path ?? null,
    detail: probe.detail ?? null,
    packages: converter.packages,
    edges: converter.edges.length,
  };
}

async function printEngines(engines: EngineStatus[]): Promise<void> {
  // The deeper checks start engines (LibreOffice, a browser): all at once, printed in order.
  const diagnoses = engines.map(({ converter, probe }) =>
    probe.ok && converter.diagnose
      ? converter.diagnose().catch((e: Error) => [`the deeper check failed: ${e.message}`])
      : Promise.resolve([]),
  );
  for (const [i, { converter, probe }] of engines.entries()) {
    const where = probe.ok ? `${probe.version ?? ''}  ${probe.path ?? ''}` : (probe.detail ?? 'not found');
    console.log(`${probe.ok ? 'ok     ' : 'MISSING'} ${converter.name.padEnd(14)} ${where}`);
    if (!probe.ok && converter.packages.length > 0)
      console.log(`        ${aptInstallLine(converter.packages)}`);
    for (const line of await diagnoses[i]!) console.log(`        ${line}`);
  }
  const sandbox = engineSandbox();
  const network = sandbox.network ? 'no network (own namespace)' : 'network not isolated';
  const output =
    sandbox.defaultFileSizeBytes === null
      ? 'no output cap'
      : `output cap ${sandbox.defaultFileSizeBytes} bytes per file`;
  const limits = sandbox.limits ? `memory and CPU caps, ${output}` : 'no memory, CPU or output caps';
  console.log(
    `\nengine isolation: ${sandbox.enabled ? `${limits}, ${network}` : 'off (FILECONV_ENGINE_SANDBOX=off)'}`,
  );
  if (sandbox.enabled) console.log(`engine confinement: ${describeConfinement()}`);
  for (const note of [...sandbox.notes, ...(sandbox.enabled ? engineConfinement().notes : [])])
    console.log(`        ${note}`);
  console.log(`webhook secret: ${webhookSecretStatus()}`);
}

function printFonts(report: FontReport): void {
  console.log('\nfonts:');
  if (report.problem) console.log(`        ${report.problem}`);
  for (const p of report.packages) {
    const state = p.missing.length === 0 ? 'ok     ' : 'MISSING';
    console.log(`${state} ${p.package.padEnd(24)} ${p.covers}`);
    if (p.missing.length > 0) {
      console.log(`        no ${p.missing.join(', ')}: ${p.breaks}`);
      console.log(`        ${aptInstallLine([p.package])}`);
    }
  }
}

const missingFontPackages = (report: FontReport) =>
  report.packages.filter((p) => p.missing.length > 0).map((p) => p.package);

async function doctorCommand(flags: DoctorFlags): Promise<number> {
  let ocrPackages: string[];
  try {
    ocrPackages = ocrLanguagePackages(flags.ocrLangs);
    if (ocrPackages.length > 0 && !flags.install)
      throw new Error('--ocr-langs installs languages, so it goes with --install');
  } catch (e) {
    console.error(`fileconv doctor: ${(e as Error).message}`);
    return EXIT.USAGE;
  }
  let engines = await probeEngines();
  let installed: string[] = [];
  if (flags.install) {
    const wanted = [
      ...SANDBOX_PACKAGES,
      ...engines.flatMap((e) => e.converter.packages),
      ...FONT_PACKAGE_NAMES,
    ];
    if (flags.withTestTools) wanted.push(...TEST_TOOL_PACKAGES);
    wanted.push(...ocrPackages);
    const missing = await missingPackages(wanted);
    if (missing.length > 0) {
      if (process.getuid?.() !== 0) {
        console.error(`fileconv doctor: --install needs root; run: ${aptInstallLine(missing)}`);
        return EXIT.FAILED;
      }
      console.error(`installing: ${missing.join(' ')}`);
      await aptInstall(missing);
      installed = missing;
      resetEngineCache();
      resetOcrLanguages();
      resetCatalog();
      engines = await probeEngines();
    } else if (!flags.json) {
      console.log('every engine and font package is installed');
    }
    const account = await ensureEngineAccount();
    if (account && !flags.json) console.log(account);
  }
  const missingEngines = engines.filter((e) => !e.probe.ok);
  const fonts = await checkFonts();
  const missingFonts = missingFontPackages(fonts);
  let selftest: SelftestReport | undefined;
  if (!flags.json) {
    await printEngines(engines);
    printFonts(fonts);
    console.log(`\nOCR languages: ${(await installedOcrLanguages()).join(', ') || 'none'}`);
  }
  const interrupted = interruptSignal();
  if (flags.selftest) {
    if (!flags.json) console.log('\nself-test:');
    selftest = await runSelftest({
      only: flags.only,
      signal: interrupted,
      onResult: flags.json ? undefined : (r) => console.log(formatRow(r)),
    });
  }
  if (flags.json) {
    const missingPkgs = [
      ...new Set([...missingEngines.flatMap((e) => e.converter.packages), ...missingFonts]),
    ].sort();
    console.log(
      JSON.stringify(
        {
          engines: engines.map(engineJson),
          fonts: fonts.packages.map((p) => ({
            package: p.package,
            ok: p.missing.length === 0,
            missing_families: p.missing,
            covers: p.covers,
            breaks: p.breaks,
          })),
          ocr_languages: await installedOcrLanguages(),
          missing_packages: missingPkgs,
          install_command: missingPkgs.length > 0 ? aptInstallLine(missingPkgs) : null,
          installed,
          ...(selftest ? { selftest: { ...selftest, wall_ms: selftest.wallMs, wallMs: undefined } } : {}),
        },
        null,
        2,
      ),
    );
  } else if (selftest) {
    console.log(`\nwall time ${(selftest.wallMs / 1000).toFixed(1)} s`);
    console.log(`${selftest.passed} passed, ${selftest.failed} failed`);
  }
  if (interrupted.aborted) return Number(process.exitCode ?? EXIT.SIGINT);
  return missingEngines.length > 0 || missingFonts.length > 0 || (selftest && selftest.failed > 0)
    ? EXIT.FAILED
    : EXIT.OK;
}
