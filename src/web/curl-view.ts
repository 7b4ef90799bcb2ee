/** The page's flow as curl commands, filled in with this server's address and the last choice. */
export function curlCommands(origin: string, fileName = 'photo.png', conversion = 'png-jpg'): string {
  const target = conversion.slice(conversion.indexOf('-') + 1) || 'jpg';
  const file = shellQuote(`file=@${fileName}`);
  const meta = shellQuote(`meta={"conversion":"${conversion}"};type=application/json`);
  return [
    '# What is this file really? (declared versus detected type)',
    `curl -s -F ${file} ${origin}/api/public/detect`,
    '',
    '# Which conversions exist?',
    `curl -s ${origin}/api/public/conversions`,
    '',
    '# Convert: answers 202 with a request_id',
    `curl -s -F ${meta} \\\n  -F ${file} ${origin}/api/public/convert`,
    '',
    '# Or from a public URL',
    `curl -s -F ${shellQuote(`meta={"source_url":"https://example.com/${fileName}","to":"${target}"};type=application/json`)} \\\n  ${origin}/api/public/convert`,
    '',
    '# Poll about once a second until "status" is "succeeded" (or "failed")',
    `curl -s ${origin}/api/public/requests/REQUEST_ID`,
    '',
    '# Download: the link redirects to a signed address, valid for an hour',
    `curl -sLOJ ${origin}/api/public/requests/REQUEST_ID/artifacts/${target}`,
    '',
    '# With an API key, add to any command:',
    '#   -H "Authorization: Bearer $FILECONV_API_KEY"',
  ].join('\n');
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
