"""Writes an OpenDocument database (.odb) with LibreOffice Base through UNO; no command-line
conversion makes one. The database is a dBASE folder next to the document, so the file holds a
relative link and no machine path. Run with the system Python (python3-uno):
    /usr/bin/python3 test/detect/make-fixture-odb.py <work folder> <output .odb>
"""

import subprocess
import sys
import time

import uno

work, target = sys.argv[1], sys.argv[2]
pipe = 'fileconv-fixture-odb'
office = subprocess.Popen(
    ['soffice', f'-env:UserInstallation={uno.systemPathToFileUrl(work)}/odb-profile', '--headless',
     '--norestore', f'--accept=pipe,name={pipe};urp;'],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
local = uno.getComponentContext()
resolver = local.ServiceManager.createInstanceWithContext('com.sun.star.bridge.UnoUrlResolver', local)
ctx = None
for _ in range(120):  # the office takes a few seconds to accept connections
    try:
        ctx = resolver.resolve(f'uno:pipe,name={pipe};urp;StarOffice.ComponentContext')
        break
    except Exception:
        time.sleep(0.5)
if ctx is None:
    office.kill()
    sys.exit('LibreOffice did not start')
desktop = ctx.ServiceManager.createInstanceWithContext('com.sun.star.frame.Desktop', ctx)
try:
    source = ctx.ServiceManager.createInstanceWithContext('com.sun.star.sdb.DatabaseContext', ctx).createInstance()
    source.URL = 'sdbc:dbase:' + uno.systemPathToFileUrl(work)
    source.DatabaseDocument.storeAsURL(uno.systemPathToFileUrl(target), ())
finally:
    try:
        desktop.terminate()
    except Exception:
        pass
    office.wait(timeout=60)
