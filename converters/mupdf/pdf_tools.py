"""Page operations on a PDF with MuPDF (python3-fitz): redaction, rotation of chosen pages, removal
of blank pages, cropping, several pages per sheet and booklets.

Run as `python3 pdf_tools.py job.json`: every parameter is read from the job file, so no value can
become an option of this program or of anything it runs. It prints one JSON line: what it did,
or {"error": ..., "code": ...} with exit status 3 for a request the document cannot meet.
"""

import json
import re
import sys

import fitz

# A grey pixel darker than this is ink when pages are judged blank (paper tone of a scan is not).
BLANK_INK = 200
# Anything not white is content when a page is cropped to what it shows.
CONTENT_INK = 250
# Pages are rendered at 72 dpi to be judged: one pixel a point.
RENDER_DPI = 72


class Refusal(Exception):
    def __init__(self, message, code="INVALID_REQUEST"):
        super().__init__(message)
        self.code = code


def check_page(option, page, count):
    if page > count:
        raise Refusal(f"option {option} {page}: the document has {count} pages")


def to_mupdf(page, box):
    """A box in PDF user space (points, origin bottom-left, as pdfinfo -box prints) to MuPDF's
    coordinates of the unrotated page (origin top-left of the MediaBox)."""
    return fitz.Rect(box) * page.transformation_matrix


def line_spans(page):
    """Each line of text with the box of every character, for matching terms and expressions."""
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", []):
            chars = [c for span in line["spans"] for c in span["chars"]]
            yield "".join(c["c"] for c in chars), [fitz.Rect(c["bbox"]) for c in chars]


def text_matches(page, pattern):
    rects = []
    for text, boxes in line_spans(page):
        for m in pattern.finditer(text):
            if m.end() > m.start():
                area = fitz.Rect(boxes[m.start()])
                for box in boxes[m.start() + 1 : m.end()]:
                    area |= box
                rects.append(area)
    return rects


def redact(doc, job):
    patterns = [re.compile(re.escape(t), re.IGNORECASE) for t in job.get("terms", [])]
    if job.get("regex"):
        try:
            patterns.append(re.compile(job["regex"]))
        except re.error as e:
            raise Refusal(f"option redact_regex is not a valid regular expression: {e}")
    boxes = job.get("boxes", [])
    for box in boxes:
        if box["page"] is not None:
            check_page("redact_boxes", box["page"], doc.page_count)
    areas = 0
    pages = 0
    for number in range(doc.page_count):
        page = doc[number]
        rects = [to_mupdf(page, b["box"]) for b in boxes if b["page"] in (None, number + 1)]
        for pattern in patterns:
            rects += text_matches(page, pattern)
        if not rects:
            continue
        for r in rects:
            page.add_redact_annot(r)
        # Text and the pixels of pictures under each box go. Debian's binding of 1.21 breaks its
        # page objects in apply_redactions' own annotation walk, so MuPDF's step is called
        # directly and the boxes are drawn here.
        page._apply_redactions(fitz.PDF_REDACT_IMAGE_PIXELS)
        shape = page.new_shape()
        for r in rects:
            shape.draw_rect(r)
        shape.finish(fill=(0, 0, 0), color=(0, 0, 0))
        shape.commit()
        areas += len(rects)
        pages += 1
    return {"redacted_areas": areas, "redacted_pages": pages}


def rotate_pages(doc, turns):
    for turn in turns:
        check_page("rotate_pages", turn["page"], doc.page_count)
    for turn in turns:
        page = doc[turn["page"] - 1]
        page.set_rotation((page.rotation + turn["angle"]) % 360)


def grey_rows(page, ink):
    """The page rendered grey, as rows of bytes where 0 is ink and 1 is not."""
    pix = page.get_pixmap(dpi=RENDER_DPI, colorspace=fitz.csGRAY, alpha=False)
    table = bytes(0 if v < ink else 1 for v in range(256))
    data = pix.samples.translate(table)
    return [data[y * pix.stride : y * pix.stride + pix.width] for y in range(pix.height)], pix


def ink_share(page):
    rows, pix = grey_rows(page, BLANK_INK)
    inked = sum(len(row) - sum(row) for row in rows)
    return inked / max(1, pix.width * pix.height)


def remove_blank(doc, threshold):
    blank = [page.number for page in doc if ink_share(page) <= threshold]
    if len(blank) == doc.page_count:
        raise Refusal("remove_blank_pages: every page is blank, nothing would be left")
    if blank:
        doc.delete_pages(blank)
    return [n + 1 for n in blank]


def content_box(page):
    """The box of what the page shows, in MuPDF's unrotated coordinates, or None when blank."""
    rows, pix = grey_rows(page, CONTENT_INK)
    inked = [y for y, row in enumerate(rows) if 0 in row]
    if not inked:
        return None
    left = min(rows[y].find(0) for y in inked)
    right = max(rows[y].rfind(0) for y in inked) + 1
    # The pixmap shows the page as displayed (rotated, within its CropBox): back to the page's own space.
    shown = fitz.Rect(left - 1, inked[0] - 1, right + 1, inked[-1] + 2) * (72 / RENDER_DPI)
    shown &= page.rect
    own = shown * page.derotation_matrix
    tl = page.cropbox.tl
    return fitz.Rect(own.x0 + tl.x, own.y0 + tl.y, own.x1 + tl.x, own.y1 + tl.y)


def crop(doc, box):
    for page in doc:
        if box == "content":
            area = content_box(page)
            if area is None:
                continue
        else:
            area = to_mupdf(page, box) & page.mediabox
            if area.is_empty:
                raise Refusal(f"option crop {box}: the box is outside page {page.number + 1}")
        page.set_cropbox(area)


GRID = {2: (2, 1), 4: (2, 2), 6: (3, 2), 9: (3, 3)}


def sheet_size(source, per_sheet):
    """The first page's size, turned for 2 and 6 pages a sheet so that the cells keep its shape."""
    first = source[0].rect
    w, h = first.width, first.height
    return (h, w) if per_sheet in (2, 6) else (w, h)


def booklet_order(count):
    """Pages of a saddle-stitched booklet, two a side, padded to a multiple of four (0 is blank)."""
    n = (count + 3) // 4 * 4
    order = []
    for i in range(n // 4):
        order += [n - 2 * i, 2 * i + 1, 2 * i + 2, n - 2 * i - 1]
    return [p if p <= count else 0 for p in order]


def n_up(source, per_sheet, booklet):
    if booklet:
        per_sheet = 2
    cols, rows = GRID[per_sheet]
    w, h = sheet_size(source, per_sheet)
    # Landscape pages: the grid turns with the sheet (2 a sheet stacked, not side by side).
    if source[0].rect.width > source[0].rect.height:
        cols, rows = rows, cols
    order = booklet_order(source.page_count) if booklet else list(range(1, source.page_count + 1))
    out = fitz.open()
    cw, ch = w / cols, h / rows
    for start in range(0, len(order), per_sheet):
        sheet = out.new_page(width=w, height=h)
        for i, number in enumerate(order[start : start + per_sheet]):
            if number == 0:
                continue
            x, y = i % cols, i // cols
            cell = fitz.Rect(x * cw, y * ch, (x + 1) * cw, (y + 1) * ch)
            try:
                sheet.show_pdf_page(cell, source, number - 1)
            except ValueError:
                pass  # a page with nothing on it leaves its cell empty

    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        job = json.load(f)
    doc = fitz.open(job["input"])
    if doc.needs_pass:
        raise Refusal("The PDF needs a password.", "ENCRYPTED_DOCUMENT")
    done = {"pages_in": doc.page_count}
    if job.get("redact"):
        done.update(redact(doc, job["redact"]))
    # The order operations take in a chain of steps (OPERATION_ORDER): page numbers of
    # rotate_pages count the pages left once blank ones are gone.
    if job.get("remove_blank") is not None:
        done["removed_pages"] = remove_blank(doc, job["remove_blank"])
    if job.get("crop"):
        crop(doc, job["crop"])
    if job.get("rotate_pages"):
        rotate_pages(doc, job["rotate_pages"])
    if job.get("per_sheet") or job.get("booklet"):
        doc = n_up(doc, job.get("per_sheet") or 2, bool(job.get("booklet")))
    done["pages_out"] = doc.page_count
    # Written whole, unreferenced objects dropped: nothing redacted stays behind in an old revision.
    doc.save(job["output"], garbage=3, deflate=True)
    print(json.dumps(done))


if __name__ == "__main__":
    try:
        main()
    except Refusal as e:
        print(json.dumps({"error": str(e), "code": e.code}))
        sys.exit(3)
