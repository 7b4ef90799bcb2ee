#!/usr/bin/env python3
"""
What a PDF is, as one JSON report: its version, its pages and their sizes, the document
information and the PDF/A identification its XMP claims, encryption and permissions, form fields,
attachments, and every signature it carries, each checked (signatures.py).

The job arrives on standard input as JSON (the document's password with it, never on a command
line). The report is written to the output file; one JSON line is printed with what the timeline
says, or, with exit code 3, why the request cannot be met.
"""
import json
import mmap
import sys

import pikepdf
from pikepdf import Array, Dictionary, Name
from signatures import check_all, load_roots, pdf_date

# Page sizes are given as runs of pages of one size; a hostile file's thousands of sizes stay bounded.
MAX_SIZE_RUNS = 1000
INFO_KEYS = ["Title", "Author", "Subject", "Keywords", "Creator", "Producer"]


def refuse(code, message):
    print(json.dumps({"code": code, "error": message}))
    sys.exit(3)


def inherited(page, key):
    node, hops = page, 0
    while isinstance(node, Dictionary) and hops < 64:
        if key in node:
            return node[key]
        node, hops = node.get("/Parent"), hops + 1
    return None


def page_size(page):
    box = inherited(page, "/CropBox") or inherited(page, "/MediaBox")
    try:
        x0, y0, x1, y1 = (float(v) for v in box)
    except (TypeError, ValueError):
        return None
    width, height = round(abs(x1 - x0), 1), round(abs(y1 - y0), 1)
    rotate = inherited(page, "/Rotate")
    if rotate is not None and int(rotate) % 180 == 90:
        width, height = height, width
    return width, height


def page_sizes(pdf):
    runs = []
    for number, page in enumerate(pdf.pages, start=1):
        size = page_size(page.obj)
        if runs and runs[-1]["size"] == size and runs[-1]["last"] == number - 1:
            runs[-1]["last"] = number
        elif len(runs) < MAX_SIZE_RUNS:
            runs.append({"size": size, "first": number, "last": number})
    return [
        {
            "pages": f"{r['first']}" if r["first"] == r["last"] else f"{r['first']}-{r['last']}",
            "width": r["size"][0] if r["size"] else None,
            "height": r["size"][1] if r["size"] else None,
        }
        for r in runs
    ]


def info(pdf):
    found = {}
    docinfo = pdf.trailer.get("/Info")
    if not isinstance(docinfo, Dictionary):
        return found
    for key in INFO_KEYS:
        value = docinfo.get(f"/{key}")
        if value is not None and str(value).strip():
            found[key.lower()] = str(value)
    for key, name in (("CreationDate", "created"), ("ModDate", "modified")):
        value = docinfo.get(f"/{key}")
        if value is not None:
            found[name] = pdf_date(str(value))
    return found


def pdfa_claim(pdf):
    """The PDF/A part and conformance the XMP names (a claim: nothing here validates it)."""
    try:
        meta = pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False)
        part, conformance = meta.get("pdfaid:part"), meta.get("pdfaid:conformance")
    except Exception:  # noqa: BLE001 - a broken XMP packet is no claim at all
        return None
    return f"{part}{(conformance or '').lower()}" if part else None


def encryption(pdf):
    if not pdf.is_encrypted:
        return None
    enc, allow = pdf.encryption, pdf.allow
    method = {"aes": "AES", "aesv3": "AES", "rc4": "RC4"}.get(enc.stream_method.name, enc.stream_method.name)
    return {
        "method": f"{method}-{enc.bits}",
        "allows": {
            "print": bool(allow.print_highres or allow.print_lowres),
            "copy": bool(allow.extract),
            "modify": bool(allow.modify_other),
            "annotate": bool(allow.modify_annotation),
            "fill_forms": bool(allow.modify_form),
        },
    }


def form_fields(pdf):
    form = pdf.Root.get("/AcroForm")
    fields = form.get("/Fields") if isinstance(form, Dictionary) else None
    return len(fields) if isinstance(fields, Array) else 0


def attachments(pdf):
    """The embedded files' names; a name tree qpdf cannot walk holds none that a reader shows."""
    try:
        return sorted(str(name) for name in pdf.attachments.keys())
    except (pikepdf.PdfError, ValueError, TypeError):
        return []


def main():
    job = json.load(sys.stdin)
    try:
        pdf = pikepdf.open(job["input"], password=job.get("password") or "")
        report = describe(pdf, job)
    except pikepdf.PasswordError:
        refuse("ENCRYPTED_DOCUMENT", "the PDF is encrypted")
    except pikepdf.PdfError as e:
        # A page tree that loops, objects qpdf cannot recover: the runner tries its repairs.
        refuse("MALFORMED_DOCUMENT", f"the PDF cannot be read: {e}")
    with open(job["output"], "w", encoding="utf-8") as f:
        json.dump(report, f, ensure_ascii=False, indent=2)
    sigs = report["signatures"]
    print(
        json.dumps(
            {
                "pages": report["pages"],
                "signatures": [
                    {k: s.get(k) for k in ("field", "signer", "signed_at", "valid", "problem", "covers_whole_file")}
                    for s in sigs
                ],
            }
        )
    )


def describe(pdf, job):
    # Mapped, not read: only the bytes a signature covers are ever touched, and never copied.
    with open(job["input"], "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    mark = pdf.Root.get("/MarkInfo")
    return {
        "pdf_version": pdf.pdf_version,
        "pages": len(pdf.pages),
        "page_sizes": page_sizes(pdf),
        "info": info(pdf),
        "pdfa": pdfa_claim(pdf),
        "encryption": encryption(pdf),
        "tagged": isinstance(mark, Dictionary) and bool(mark.get("/Marked", False)),
        "form_fields": form_fields(pdf),
        "attachments": attachments(pdf),
        "signatures": check_all(pdf, data, load_roots(job.get("roots"))),
    }


if __name__ == "__main__":
    main()
