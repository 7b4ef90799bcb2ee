#!/usr/bin/env python3
"""
Signs a PDF with the key and certificate of a PKCS#12 file: a PAdES B-B signature
(ETSI.CAdES.detached: a CMS SignedData over the file's bytes but the signature's own, with the
signer's certificate bound by the signing-certificate-v2 attribute and the time in the signature
dictionary's /M, not in the CMS, as ETSI EN 319 142-1 asks). Visible on a page, or invisible.

The job arrives on standard input as JSON, the certificate and its password with it, so neither
is ever written to a file or a command line. One JSON line is printed: what was signed, or, with
exit code 3, why the request cannot be met.

pikepdf writes the PDF with room for the signature (a /Contents of zeros, a /ByteRange of
placeholders), without object streams so the signature dictionary is plain text in the file; the
byte ranges are then filled in, the digest taken over them, and the CMS written into /Contents.
"""
import base64
import datetime
import hashlib
import json
import sys

import pikepdf
from asn1crypto import algos, cms, core, tsp
from asn1crypto import x509 as asn1_x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.serialization import Encoding, pkcs12
from pikepdf import Array, Dictionary, Name, String

CONTENTS_BYTES = 16384
PLACEHOLDER = 9999999999
WIDTH, HEIGHT, EDGE = 220, 56, 28


def refuse(code, message):
    print(json.dumps({"code": code, "error": message}))
    sys.exit(3)


def load_identity(job):
    password = job.get("password")
    try:
        key, cert, extra = pkcs12.load_key_and_certificates(
            base64.b64decode(job["p12"]), password.encode("utf-8") if password else None
        )
    except ValueError:
        refuse(
            "INVALID_REQUEST",
            "option sign_certificate: the PKCS#12 file cannot be opened with the password given"
            " (sign_password), or it is not a PKCS#12 file",
        )
    if key is None or cert is None:
        refuse("INVALID_REQUEST", "option sign_certificate: the PKCS#12 file holds no private key with its certificate")
    if not isinstance(key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
        refuse("INVALID_REQUEST", "option sign_certificate: only RSA and ECDSA keys sign here")
    signer = asn1_x509.Certificate.load(cert.public_bytes(Encoding.DER))
    chain = [asn1_x509.Certificate.load(c.public_bytes(Encoding.DER)) for c in (extra or [])]
    return key, signer, chain


def existing_signatures(pdf):
    form = pdf.Root.get("/AcroForm")
    if form is None:
        return 0
    fields = form.get("/Fields")
    count, seen, stack = 0, set(), list(fields) if isinstance(fields, Array) else []
    while stack:
        field = stack.pop()
        # A field tree is a tree by the specification; a hostile file makes it loop.
        key = field.objgen if field.is_indirect else id(field)
        if key in seen or not isinstance(field, Dictionary):
            continue
        seen.add(key)
        if field.get("/FT") == Name.Sig and "/V" in field:
            count += 1
        kids = field.get("/Kids")
        if isinstance(kids, Array):
            stack.extend(kids)
    return count


def pdf_date(moment):
    return moment.strftime("D:%Y%m%d%H%M%S+00'00'")


def winansi(text):
    return text.encode("cp1252", errors="replace").decode("cp1252")


def escape(text):
    return winansi(text).replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def placed(page, position):
    box = [float(v) for v in page.obj.get("/CropBox", page.obj.MediaBox)]
    x0, y0, x1, y1 = min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3])
    horizontal = position.split("-")[-1] if "-" in position else "center"
    vertical = position.split("-")[0] if "-" in position else "center"
    x = {"left": x0 + EDGE, "center": (x0 + x1 - WIDTH) / 2, "right": x1 - EDGE - WIDTH}[horizontal]
    y = {"top": y1 - EDGE - HEIGHT, "center": (y0 + y1 - HEIGHT) / 2, "bottom": y0 + EDGE}[vertical]
    return [x, y, x + WIDTH, y + HEIGHT]


def appearance(pdf, lines):
    """A framed box with the signer, the time and the reason, in Helvetica (no font embedded)."""
    text = "".join(
        f"BT /F1 {9 if i else 10} Tf 6 {HEIGHT - 15 - 13 * i} Td ({escape(line)}) Tj ET\n"
        for i, line in enumerate(lines[:4])
    )
    body = f"q 0.2 0.2 0.5 RG 1 w 0.5 0.5 {WIDTH - 1} {HEIGHT - 1} re S Q\nq 0 0 0 rg\n{text}Q\n"
    font = Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=Name.Helvetica, Encoding=Name.WinAnsiEncoding)
    stream = pikepdf.Stream(pdf, body.encode("cp1252"))
    stream.Type = Name.XObject
    stream.Subtype = Name.Form
    stream.BBox = Array([0, 0, WIDTH, HEIGHT])
    stream.Resources = Dictionary(Font=Dictionary(F1=font))
    return pdf.make_indirect(stream)


def field_name(pdf):
    form = pdf.Root.get("/AcroForm")
    fields = form.get("/Fields") if form is not None else None
    names = {str(f.get("/T", "")) for f in fields if isinstance(f, Dictionary)} if isinstance(fields, Array) else set()
    n = 1
    while f"Signature{n}" in names:
        n += 1
    return f"Signature{n}"


def prepare(job, signer, moment):
    try:
        pdf = pikepdf.open(job["input"], password=job.get("document_password") or "")
    except pikepdf.PasswordError:
        refuse("ENCRYPTED_DOCUMENT", "the PDF is encrypted")
    signed = existing_signatures(pdf)
    if signed:
        refuse(
            "INVALID_REQUEST",
            f"option sign_certificate: the PDF already carries {signed} signature(s); signing it again here"
            " rewrites the file, which would break them",
        )
    common_name = signer.subject.native.get("common_name") or signer.subject.human_friendly
    sig = Dictionary(
        Type=Name.Sig,
        Filter=Name("/Adobe.PPKLite"),
        SubFilter=Name("/ETSI.CAdES.detached"),
        ByteRange=Array([0, PLACEHOLDER, PLACEHOLDER, PLACEHOLDER]),
        Contents=String(bytes(CONTENTS_BYTES)),
        M=String(pdf_date(moment)),
        Name=String(winansi(common_name)),
    )
    if job.get("reason"):
        sig.Reason = String(job["reason"])
    if job.get("location"):
        sig.Location = String(job["location"])
    sig = pdf.make_indirect(sig)
    page_number = job.get("page")
    if page_number is not None and not 1 <= page_number <= len(pdf.pages):
        refuse("INVALID_REQUEST", f"option sign_page {page_number}: the document has {len(pdf.pages)} pages")
    page = pdf.pages[(page_number or 1) - 1]
    widget = Dictionary(
        Type=Name.Annot,
        Subtype=Name.Widget,
        FT=Name.Sig,
        T=String(field_name(pdf)),
        V=sig,
        F=132,
        P=page.obj,
        Rect=Array([0, 0, 0, 0]),
    )
    if page_number is not None:
        widget.Rect = Array(placed(page, job.get("position") or "bottom-right"))
        lines = [f"Digitally signed by {common_name}", moment.strftime("Date: %Y-%m-%d %H:%M:%S UTC")]
        if job.get("reason"):
            lines.append(f"Reason: {job['reason']}")
        if job.get("location"):
            lines.append(f"Location: {job['location']}")
        widget.AP = Dictionary(N=appearance(pdf, lines))
    widget = pdf.make_indirect(widget)
    if not isinstance(page.obj.get("/Annots"), Array):
        page.obj.Annots = Array([])
    page.obj.Annots.append(widget)
    if "/AcroForm" not in pdf.Root:
        pdf.Root.AcroForm = pdf.make_indirect(Dictionary(Fields=Array([])))
    form = pdf.Root.AcroForm
    if not isinstance(form.get("/Fields"), Array):
        form.Fields = Array([])
    form.Fields.append(widget)
    form.SigFlags = 3
    pdf.save(job["output"], object_stream_mode=pikepdf.ObjectStreamMode.disable)
    return common_name, len(pdf.pages)


def cms_signature(key, signer, chain, digest):
    cert_id = tsp.ESSCertIDv2(
        {
            "cert_hash": hashlib.sha256(signer.dump()).digest(),
            "issuer_serial": {
                "issuer": [asn1_x509.GeneralName({"directory_name": signer.issuer})],
                "serial_number": signer.serial_number,
            },
        }
    )
    attrs = cms.CMSAttributes(
        [
            cms.CMSAttribute({"type": "content_type", "values": ["data"]}),
            cms.CMSAttribute({"type": "message_digest", "values": [digest]}),
            cms.CMSAttribute(
                {"type": "signing_certificate_v2", "values": [tsp.SigningCertificateV2({"certs": [cert_id]})]}
            ),
        ]
    )
    to_sign = attrs.dump()
    if isinstance(key, rsa.RSAPrivateKey):
        signature = key.sign(to_sign, padding.PKCS1v15(), hashes.SHA256())
        algorithm = "sha256_rsa"
    else:
        signature = key.sign(to_sign, ec.ECDSA(hashes.SHA256()))
        algorithm = "sha256_ecdsa"
    sha256 = algos.DigestAlgorithm({"algorithm": "sha256"})
    signer_info = cms.SignerInfo(
        {
            "version": "v1",
            "sid": cms.SignerIdentifier(
                {
                    "issuer_and_serial_number": cms.IssuerAndSerialNumber(
                        {"issuer": signer.issuer, "serial_number": signer.serial_number}
                    )
                }
            ),
            "digest_algorithm": sha256,
            "signed_attrs": attrs,
            "signature_algorithm": algos.SignedDigestAlgorithm({"algorithm": algorithm}),
            "signature": core.OctetString(signature),
        }
    )
    signed_data = cms.SignedData(
        {
            "version": "v1",
            "digest_algorithms": [sha256],
            "encap_content_info": {"content_type": "data"},
            "certificates": [signer, *chain],
            "signer_infos": [signer_info],
        }
    )
    return cms.ContentInfo({"content_type": "signed_data", "content": signed_data}).dump()


def fill(job, key, signer, chain):
    with open(job["output"], "rb") as f:
        data = bytearray(f.read())
    zeros = b"<" + b"0" * (2 * CONTENTS_BYTES) + b">"
    start = data.find(zeros)
    if start < 0 or data.find(zeros, start + 1) >= 0:
        raise RuntimeError("the signature's placeholder is not in the written file exactly once")
    end = start + len(zeros)
    placeholder = f"[ 0 {PLACEHOLDER} {PLACEHOLDER} {PLACEHOLDER} ]".encode()
    at = data.find(placeholder)
    if at < 0:
        raise RuntimeError("the byte range's placeholder is not in the written file")
    ranges = f"[ 0 {start} {end} {len(data) - end}".encode()
    data[at : at + len(placeholder)] = ranges + b" " * (len(placeholder) - len(ranges) - 1) + b"]"
    digest = hashlib.sha256(bytes(data[:start]) + bytes(data[end:])).digest()
    signature = cms_signature(key, signer, chain, digest).hex().encode()
    if len(signature) > 2 * CONTENTS_BYTES:
        refuse("INVALID_REQUEST", "option sign_certificate: its certificate chain is too long to embed")
    data[start + 1 : start + 1 + len(signature)] = signature
    with open(job["output"], "wb") as f:
        f.write(data)


def main():
    job = json.loads(sys.stdin.read())
    key, signer, chain = load_identity(job)
    moment = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    name, pages = prepare(job, signer, moment)
    fill(job, key, signer, chain)
    not_after = signer["tbs_certificate"]["validity"]["not_after"].native
    print(
        json.dumps(
            {
                "signer": name,
                "pages": pages,
                "visible_on": job.get("page"),
                "certificate_expired": not_after < moment,
                "certificate_valid_until": not_after.strftime("%Y-%m-%d"),
            }
        )
    )


if __name__ == "__main__":
    main()
