"""
The signatures a PDF carries, each checked from the file's own bytes: the digest of the byte
ranges it names against the one the CMS signed, the CMS signature against the signer's public key,
whether the ranges cover the whole file (bytes after them are a later revision: the document was
changed after it was signed), and the signer's certificate: its dates, its chain inside the CMS,
and whether that chain ends at one of the roots of the system's certificate list.

Nothing here trusts the file: a field tree that loops, byte ranges outside the file or not
around the /Contents string, a CMS that does not parse, each gives a signature that is not
valid, with the reason, instead of an error for the whole report.
"""
import datetime
import hashlib
import re

from asn1crypto import cms, core, pem, tsp
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils
from pikepdf import Array, Dictionary, Name

# More than any real document holds (each is a CMS of a few KB to check).
MAX_SIGNATURES = 100
MAX_CHAIN = 10
HASHES = {"sha1": hashes.SHA1, "sha224": hashes.SHA224, "sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}


def signature_fields(pdf):
    """(field name, signature dictionary) of every signed field, in the order of the field tree."""
    form = pdf.Root.get("/AcroForm")
    fields = form.get("/Fields") if isinstance(form, Dictionary) else None
    found, seen = [], set()
    stack = [(f, "") for f in reversed(list(fields))] if isinstance(fields, Array) else []
    while stack and len(found) < MAX_SIGNATURES:
        field, parent = stack.pop()
        key = field.objgen if field.is_indirect else id(field)
        if key in seen or not isinstance(field, Dictionary):
            continue
        seen.add(key)
        name = ".".join(p for p in (parent, text(field.get("/T"))) if p)
        value = field.get("/V")
        if field.get("/FT") == Name.Sig and isinstance(value, Dictionary):
            found.append((name, value))
        kids = field.get("/Kids")
        if isinstance(kids, Array):
            stack.extend((k, name) for k in reversed(list(kids)))
    return found


def text(value):
    return str(value) if value is not None else ""


def check_all(pdf, data, roots):
    return [check(name, sig, data, roots) for name, sig in signature_fields(pdf)]


def check(name, sig, data, roots):
    subfilter = text(sig.get("/SubFilter")).lstrip("/")
    entry = {
        "field": name,
        "type": subfilter or None,
        "signer_name": text(sig.get("/Name")) or None,
        "signed_at": pdf_date(text(sig.get("/M"))),
        "reason": text(sig.get("/Reason")) or None,
        "location": text(sig.get("/Location")) or None,
        "valid": False,
    }
    ranges = byte_ranges(sig.get("/ByteRange"), len(data))
    if isinstance(ranges, str):
        return {**entry, "problem": ranges}
    (a, b), (c, d) = ranges
    entry["byte_range"] = [a, b, c, d]
    entry["covers_whole_file"] = c + d == len(data)
    entry["bytes_after_signature"] = len(data) - (c + d)
    # The hole between the ranges must be exactly the /Contents string: anything else lets bytes
    # outside the ranges be read as part of the document.
    if data[a + b : a + b + 1] != b"<" or data[c - 1 : c] != b">":
        return {**entry, "problem": "the byte ranges do not surround the signature's /Contents: bytes outside them are part of the document"}
    try:
        contents = bytes.fromhex(data[a + b + 1 : c - 1].decode("ascii"))
    except ValueError:
        return {**entry, "problem": "the signature's /Contents is not a hexadecimal string"}
    signed = SignedRanges(data, (a, b), (c, d))
    return {**entry, **verify_cms(contents, signed, subfilter, roots, entry["signed_at"])}


class SignedRanges:
    """The two byte ranges a signature covers, hashed where they lie (the file is mapped, not copied)."""

    def __init__(self, data, first, second):
        self.parts = [memoryview(data)[start : start + length] for start, length in (first, second)]
        self.digests = {}

    def digest(self, name):
        if name not in self.digests:
            h = hashlib.new(name)
            for part in self.parts:
                h.update(part)
            self.digests[name] = h.digest()
        return self.digests[name]


def byte_ranges(value, size):
    numbers = [int(v) for v in value] if isinstance(value, Array) and all(isinstance(v, int) or hasattr(v, "__int__") for v in value) else []
    if len(numbers) != 4:
        return "the signature has no /ByteRange of four numbers"
    a, b, c, d = numbers
    if a != 0 or b <= 0 or c <= a + b or d < 0 or c + d > size:
        return f"the /ByteRange [{a} {b} {c} {d}] does not start the file and stay inside it ({size} bytes)"
    return (a, b), (c, d)


def verify_cms(contents, signed, subfilter, roots, signed_at):
    # asn1crypto parses lazily: a malformed part may raise wherever it is first read.
    try:
        return read_cms(contents, signed, subfilter, roots, signed_at)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as e:
        return {"problem": f"the signature's CMS cannot be read ({type(e).__name__})"}


def read_cms(contents, signed, subfilter, roots, signed_at):
    try:
        info = cms.ContentInfo.load(contents)
        if info["content_type"].native != "signed_data":
            return {"problem": f"the signature is a CMS {info['content_type'].native}, not signed data"}
        sd = info["content"]
        signer = sd["signer_infos"][0]
        digest_name = signer["digest_algorithm"]["algorithm"].native
        certificates = [c.chosen for c in sd["certificates"] if c.name == "certificate"] if present(sd["certificates"]) else []
    except (ValueError, TypeError, KeyError, IndexError) as e:
        return {"problem": f"the signature's CMS cannot be read ({type(e).__name__})"}
    if digest_name not in HASHES:
        return {"problem": f"the digest algorithm {digest_name} is not one checked here"}
    digest = signed.digest(digest_name)
    result = {"digest_algorithm": digest_name}
    cert = signer_certificate(signer["sid"], certificates)
    if cert is None:
        return {**result, "problem": "the CMS does not hold the signer's certificate"}
    result["certificate"] = describe_certificate(cert, certificates, roots, signed_at or signing_time(signer))
    result["signer"] = common_name(cert.subject) or cert.subject.human_friendly
    claimed = claimed_digest(sd, signer, signed, subfilter, digest)
    if isinstance(claimed, str):
        return {**result, "problem": claimed}
    if claimed[0] != claimed[1]:
        return {**result, "problem": "the signed bytes have changed: their digest is not the one the signature holds"}
    signed_time = signing_time(signer)
    if signed_time:
        result["signed_at_claimed_by_cms"] = signed_time
    problem = check_signature_value(signer, cert, digest_name, signed)
    if problem:
        return {**result, "problem": problem}
    return {**result, "valid": True}


def present(optional):
    """Whether an optional CMS field is there. Its .native would parse every value, which an
    attribute this library reads differently from its writer (Adobe's revocation archive) fails."""
    return not isinstance(optional, core.Void) and len(optional) > 0


def signer_certificate(sid, certificates):
    for cert in certificates:
        if sid.name == "issuer_and_serial_number":
            if cert.issuer == sid.chosen["issuer"] and cert.serial_number == sid.chosen["serial_number"].native:
                return cert
        elif cert.key_identifier == sid.chosen.native:
            return cert
    return None


def claimed_digest(sd, signer, signed, subfilter, digest):
    """(the digest the signature vouches for, the digest it must equal), or why it cannot be told."""
    attrs = signer["signed_attrs"]
    content = sd["encap_content_info"]["content"]
    if subfilter == "ETSI.RFC3161":
        tst = tsp.TSTInfo.load(content.parsed.dump()) if not isinstance(content.parsed, tsp.TSTInfo) else content.parsed
        imprint = tst["message_imprint"]
        algorithm = imprint["hash_algorithm"]["algorithm"].native
        if algorithm not in HASHES:
            return f"the time stamp's digest algorithm {algorithm} is not one checked here"
        return imprint["hashed_message"].native, signed.digest(algorithm)
    expected = digest
    if subfilter == "adbe.pkcs7.sha1":
        # The CMS signs a SHA-1 of the ranges carried as its content.
        expected = content.native if content.native is not None else b""
        if signed.digest("sha1") != expected:
            return "the signed bytes have changed: their digest is not the one the signature holds"
    if not present(attrs):
        return expected, expected
    for attr in attrs:
        if attr["type"].native == "message_digest":
            return attr["values"][0].native, expected
    return "the signature's signed attributes hold no message digest"


def signing_time(signer):
    attrs = signer["signed_attrs"]
    for attr in attrs if present(attrs) else []:
        if attr["type"].native == "signing_time":
            return iso(attr["values"][0].native)
    return None


def check_signature_value(signer, cert, digest_name, signed):
    attrs = signer["signed_attrs"]
    # The signature is over the attributes' DER as a SET OF, not under their [0] tag; without
    # attributes, over the ranges themselves, given to the key as their digest.
    message = b"\x31" + attrs.dump()[1:] if present(attrs) else None

    def over(algorithm):
        return (message, algorithm) if message is not None else (signed.digest(algorithm.name), utils.Prehashed(algorithm))

    try:
        key = x509.load_der_x509_certificate(cert.dump()).public_key()
        algorithm = signer["signature_algorithm"].signature_algo
        chosen = HASHES[digest_name]()
        value = signer["signature"].native
        if isinstance(key, rsa.RSAPublicKey) and algorithm == "rsassa_pkcs1v15":
            data, algorithm = over(chosen)
            key.verify(value, data, padding.PKCS1v15(), algorithm)
        elif isinstance(key, rsa.RSAPublicKey) and algorithm == "rsassa_pss":
            params = signer["signature_algorithm"]["parameters"]
            pss_hash = HASHES.get(params["hash_algorithm"]["algorithm"].native, hashes.SHA256)()
            data, algorithm = over(pss_hash)
            key.verify(value, data, padding.PSS(padding.MGF1(pss_hash), params["salt_length"].native), algorithm)
        elif isinstance(key, ec.EllipticCurvePublicKey) and algorithm == "ecdsa":
            data, algorithm = over(chosen)
            key.verify(value, data, ec.ECDSA(algorithm))
        else:
            return f"a {algorithm} signature is not one checked here"
    except InvalidSignature:
        return "the signature does not match the signer's public key: the signed data or the signature was altered"
    except (ValueError, TypeError, KeyError) as e:
        return f"the signature cannot be checked ({type(e).__name__})"
    return None


def describe_certificate(cert, certificates, roots, signed_at):
    now = datetime.datetime.now(datetime.timezone.utc)
    validity = cert["tbs_certificate"]["validity"]
    not_before, not_after = validity["not_before"].native, validity["not_after"].native
    chain = chain_of(cert, certificates)
    top = chain[-1]
    return {
        "subject": cert.subject.human_friendly,
        "issuer": cert.issuer.human_friendly,
        "serial_number": format(cert.serial_number, "x"),
        "not_before": iso(not_before),
        "not_after": iso(not_after),
        "expired": now > not_after,
        # An expired certificate does not void what it signed while it was valid; the time is the
        # signer's own claim (no time stamp authority vouches for it in PAdES B-B).
        "valid_when_signed": iso(not_before) <= signed_at <= iso(not_after) if signed_at else None,
        "self_signed": cert.self_signed != "no",
        "chain": [common_name(c.subject) or c.subject.human_friendly for c in chain],
        "trusted": any(issued_by(top, root) for root in roots if root.subject == top.issuer),
    }


def chain_of(cert, certificates):
    chain = [cert]
    while len(chain) < MAX_CHAIN and chain[-1].self_signed == "no":
        issuer = next((c for c in certificates if c not in chain and c.subject == chain[-1].issuer and issued_by(chain[-1], c)), None)
        if issuer is None:
            break
        chain.append(issuer)
    return chain


def issued_by(cert, issuer):
    """Whether `issuer`'s key signed `cert` (RSA PKCS#1 v1.5 and ECDSA, the algorithms of certificates)."""
    try:
        child = x509.load_der_x509_certificate(cert.dump())
        key = x509.load_der_x509_certificate(issuer.dump()).public_key()
        if isinstance(key, rsa.RSAPublicKey):
            key.verify(child.signature, child.tbs_certificate_bytes, padding.PKCS1v15(), child.signature_hash_algorithm)
        elif isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(child.signature, child.tbs_certificate_bytes, ec.ECDSA(child.signature_hash_algorithm))
        else:
            return False
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def load_roots(path):
    """The certificates of a PEM bundle (Debian's ca-certificates), or none when it cannot be read."""
    from asn1crypto import x509 as asn1_x509

    if not path:
        return []
    try:
        with open(path, "rb") as f:
            bundle = f.read()
        return [asn1_x509.Certificate.load(der) for _, _, der in pem.unarmor(bundle, multiple=True)]
    except (OSError, ValueError):
        return []


def common_name(name):
    for rdn in name.chosen:
        for attr in rdn:
            if attr["type"].native == "common_name":
                return attr["value"].native
    return None


def iso(moment):
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def pdf_date(value):
    """A PDF date (`D:20190927115452+09'00'`) in UTC as ISO 8601, or None when it is not one."""
    digits = value[2:] if value.startswith("D:") else value
    stamp = re.match(r"\d{4,14}", digits)
    if not stamp:
        return None
    # Month and day default to 01, the time to 00:00:00 (ISO 32000-1, 7.9.4).
    given = stamp.group(0)
    try:
        moment = datetime.datetime.strptime(given + "0101000000"[len(given) - 4 :], "%Y%m%d%H%M%S")
    except ValueError:
        return None
    zone = digits[len(given) :].replace("'", "")
    if zone[:1] in ("+", "-") and zone[1:5].isdigit() and len(zone) >= 5:
        offset = datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5]))
        moment = moment.replace(tzinfo=datetime.timezone(offset if zone[0] == "+" else -offset))
    else:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return iso(moment)


