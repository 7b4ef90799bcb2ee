"""Drives one long-lived headless LibreOffice over UNO, one conversion at a time.

Started by the pool next to its soffice process. Speaks JSON lines:
  stdout, once:   {"ready": true} or {"ready": false, "error": "..."}
  stdin, each:    {"id", "input", "output", "filter", "filterOptions"?, "inputFilter"?,
                   "inputFilterOptions"?, "filterData"?, "pdfPages"?, "password"?, "pageSetup"?,
                   "docInfo"?}
  stdout, each:   {"id", "ok": true} or {"id", "ok": false, "kind", "error"}
kind is "load" (the document could not be read), "password" (a password was given and the
document still could not be read: a wrong one), "store" (it could not be written),
"disconnected" (the office went away) or "request" (a bad request line).
A password arrives only on stdin and never goes into a reply: LibreOffice's load errors name
the file, not the media descriptor.
When stdin closes (the pool or its process died), when the owner dies while a conversion is
under way (the bridge is not reading stdin then), or when the bridge itself fails or is told to
stop, the office process group is killed and the instance folder removed, so no soffice outlives
its owner.
"""

import argparse
import json
import os
import shutil
import signal
import sys
import threading
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException
from com.sun.star.lang import DisposedException
from com.sun.star.uno import RuntimeException

# com.sun.star.document.MacroExecMode.NEVER_EXECUTE and UpdateDocMode.NO_UPDATE: documents come
# from strangers, so nothing in them runs and no link is followed while loading.
NEVER_EXECUTE = 0
NO_UPDATE = 0
# com.sun.star.text.ControlCharacter.PARAGRAPH_BREAK
PARAGRAPH_BREAK = 0
PAGE_BEFORE = uno.Enum("com.sun.star.style.BreakType", "PAGE_BEFORE")


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def connect(pipe, timeout_s):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local
    )
    url = "uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            ctx = resolver.resolve(url)
            return ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        except NoConnectException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def filter_data(values):
    """FilterData as the PDF export wants it: a sequence of typed PropertyValues."""
    props = tuple(prop(k, v) for k, v in values.items())
    return uno.Any("[]com.sun.star.beans.PropertyValue", props)


def anchor_to_pages(doc):
    """Gives a PDF imported into Writer one body paragraph per page, so each page's frames land on
    their own page in DOCX and RTF too.

    The import anchors every frame to a page while the body holds one empty paragraph. ODF keeps
    page anchors, but DOCX and RTF have none: their export hangs each frame on a paragraph, the
    first one when there is no other, and a multi-page PDF comes back as all its pages stacked on
    page one. With a paragraph (after a page break) per page, the export hangs each frame on its
    page's paragraph; the margins go to zero because the export measures from them, while the
    import placed the frames from the page's edge.
    """
    shapes = doc.DrawPage
    pages = 0
    for i in range(shapes.Count):
        pages = max(pages, shapes.getByIndex(i).AnchorPageNo)
    styles = doc.StyleFamilies.getByName("PageStyles")
    for name in styles.ElementNames:
        styles.getByName(name).setPropertyValues(
            ("BottomMargin", "LeftMargin", "RightMargin", "TopMargin"), (0, 0, 0, 0)
        )
    text = doc.Text
    cursor = text.createTextCursor()
    cursor.gotoEnd(False)
    for _ in range(1, pages):
        text.insertControlCharacter(cursor, PARAGRAPH_BREAK, False)
        cursor.setPropertyValue("BreakType", PAGE_BEFORE)


def apply_page_setup(doc, setup):
    """Paper, orientation, margins and scaling set on every page style before export: the PDF
    export prints pages as their styles say, and has no paper settings of its own. Lengths come
    in 1/100 mm, the unit of the style properties."""
    styles = doc.StyleFamilies.getByName("PageStyles")
    for name in styles.ElementNames:
        style = styles.getByName(name)
        info = style.getPropertySetInfo()
        width, height = setup.get("width", style.Width), setup.get("height", style.Height)
        landscape = setup.get("landscape")
        if landscape is None:
            landscape = style.IsLandscape or style.Width > style.Height
        short, long_ = sorted((width, height))
        style.IsLandscape = landscape
        style.Width, style.Height = (long_, short) if landscape else (short, long_)
        margins = setup.get("margins")
        if margins:
            style.setPropertyValues(
                ("BottomMargin", "LeftMargin", "RightMargin", "TopMargin"),
                (margins[2], margins[3], margins[1], margins[0]),
            )
        if setup.get("fitWidth") and info.hasPropertyByName("ScaleToPagesX"):
            # One page wide, as many pages tall as the rows need.
            style.ScaleToPagesY = 0
            style.ScaleToPagesX = 1
        if setup.get("noHeader") and info.hasPropertyByName("HeaderIsOn"):
            style.HeaderIsOn = False


def apply_doc_info(doc, info):
    """Title, author, subject and keywords set as the document's own properties, which the PDF
    export writes into the Info dictionary and, for PDF/A, the XMP packet alike."""
    props = doc.DocumentProperties
    if "title" in info:
        props.Title = info["title"]
    if "author" in info:
        props.Author = info["author"]
    if "subject" in info:
        props.Subject = info["subject"]
    if "keywords" in info:
        props.Keywords = tuple(k.strip() for k in info["keywords"].split(",") if k.strip())


def is_disconnect(error):
    text = type(error).__name__ + str(error)
    return isinstance(error, DisposedException) or "Binary URP bridge" in text or "disposed" in text


def convert(desktop, req):
    load_props = [
        prop("Hidden", True),
        prop("ReadOnly", True),
        prop("MacroExecutionMode", NEVER_EXECUTE),
        prop("UpdateDocMode", NO_UPDATE),
    ]
    if req.get("inputFilter"):
        load_props.append(prop("FilterName", req["inputFilter"]))
    if req.get("inputFilterOptions"):
        load_props.append(prop("FilterOptions", req["inputFilterOptions"]))
    password = req.get("password")
    if password:
        load_props.append(prop("Password", password))
    in_url = uno.systemPathToFileUrl(os.path.abspath(req["input"]))
    out_url = uno.systemPathToFileUrl(os.path.abspath(req["output"]))
    try:
        doc = desktop.loadComponentFromURL(in_url, "_blank", 0, tuple(load_props))
    except Exception as e:  # noqa: BLE001 - UNO raises IOException, IllegalArgumentException, ...
        if is_disconnect(e):
            raise
        if password:
            return {"ok": False, "kind": "password", "error": "the password did not open the document"}
        return {"ok": False, "kind": "load", "error": "could not load: %s" % (e.Message if hasattr(e, "Message") else e)}
    if doc is None:
        if password:
            return {"ok": False, "kind": "password", "error": "the password did not open the document"}
        return {"ok": False, "kind": "load", "error": "could not load the document"}
    try:
        if req.get("pdfPages"):
            anchor_to_pages(doc)
        if req.get("pageSetup"):
            apply_page_setup(doc, req["pageSetup"])
        if req.get("docInfo"):
            apply_doc_info(doc, req["docInfo"])
        store_props = [prop("FilterName", req["filter"]), prop("Overwrite", True)]
        if req.get("filterOptions"):
            store_props.append(prop("FilterOptions", req["filterOptions"]))
        if req.get("filterData"):
            store_props.append(prop("FilterData", filter_data(req["filterData"])))
        try:
            doc.storeToURL(out_url, tuple(store_props))
        except Exception as e:  # noqa: BLE001
            if is_disconnect(e):
                raise
            return {"ok": False, "kind": "store", "error": "could not store: %s" % (e.Message if hasattr(e, "Message") else e)}
        return {"ok": True}
    finally:
        try:
            doc.close(True)
        except Exception:  # noqa: BLE001 - a document that will not close is disposed instead
            try:
                doc.dispose()
            except Exception:  # noqa: BLE001
                pass


def kill_office(pgid, home):
    if pgid > 0:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    if home:
        shutil.rmtree(home, ignore_errors=True)


def watch_owner(pgid, home):
    """Ends the instance when the owner goes: a conversion in progress can take minutes, or hang,
    and only when it returns would the main loop read stdin and see it closed."""
    owner = os.getppid()
    while os.getppid() == owner:
        time.sleep(0.5)
    kill_office(pgid, home)
    os._exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pipe", required=True)
    parser.add_argument("--pgid", type=int, default=0)
    parser.add_argument("--connect-timeout", type=float, default=60.0)
    parser.add_argument("--home", default="", help="the instance folder, removed on the way out")
    args = parser.parse_args()
    threading.Thread(target=watch_owner, args=(args.pgid, args.home), daemon=True).start()
    # A stop request runs the clean-up below like any other way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        return serve(args)
    finally:
        # Every way out, a write to an owner that is gone (BrokenPipeError) included.
        kill_office(args.pgid, args.home)


def serve(args):
    try:
        desktop = connect(args.pipe, args.connect_timeout)
    except Exception as e:  # noqa: BLE001
        reply({"ready": False, "error": "could not connect to LibreOffice: %s" % e})
        return 1
    reply({"ready": True})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            rid = req["id"]
        except (ValueError, KeyError, TypeError) as e:
            reply({"id": None, "ok": False, "kind": "request", "error": "bad request: %s" % e})
            continue
        try:
            result = convert(desktop, req)
        except (DisposedException, RuntimeException) as e:
            reply({"id": rid, "ok": False, "kind": "disconnected", "error": "LibreOffice went away: %s" % e})
            break
        except Exception as e:  # noqa: BLE001
            kind = "disconnected" if is_disconnect(e) else "store"
            reply({"id": rid, "ok": False, "kind": kind, "error": str(e)})
            if kind == "disconnected":
                break
            continue
        result["id"] = rid
        reply(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
