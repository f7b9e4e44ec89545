"""The build backend of the pmail package (PEP 517), in the source tree and on the standard library
alone, so `pip install --no-index ./packages/python` needs nothing from an index: no setuptools,
no wheel. It builds a pure-Python wheel of the `pmail` package (PEP 427: the files, then
`.dist-info` with METADATA, WHEEL and RECORD) and an sdist of the source tree.
"""

import base64
import hashlib
import io
import os
import tarfile
import zipfile

NAME = "pmail"
VERSION = "0.1.0"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)
TAG = "py3-none-any"
SDIST_FILES = ("pyproject.toml", "README.md", "LICENSE")
SDIST_DIRS = ("pmail", "_build")


def _metadata():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return (
        "Metadata-Version: 2.1\n"
        "Name: %s\n"
        "Version: %s\n"
        "Summary: Client for the pmail HTTP API: sends with safe retries, typed errors, webhook verification\n"
        "License: Apache-2.0\n"
        "Requires-Python: >=3.9\n"
        "Classifier: License :: OSI Approved :: Apache Software License\n"
        "Classifier: Programming Language :: Python :: 3\n"
        "Classifier: Typing :: Typed\n"
        "Description-Content-Type: text/markdown\n"
        "\n%s" % (NAME, VERSION, readme)
    )


def _wheel_file():
    return "Wheel-Version: 1.0\nGenerator: pmail_build\nRoot-Is-Purelib: true\nTag: %s\n" % TAG


def _package_files():
    """The package's files, as (path in the wheel, path on disk), in a stable order."""
    out = []
    base = os.path.join(ROOT, NAME)
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            full = os.path.join(folder, name)
            out.append((os.path.relpath(full, ROOT).replace(os.sep, "/"), full))
    return out


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def _write_wheel(wheel_directory, extra):
    filename = "%s-%s-%s.whl" % (NAME, VERSION, TAG)
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:

        def add(arcname, data):
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(info, data)
            records.append(_record_line(arcname, data))

        for arcname, data in extra:
            add(arcname, data)
        for arcname, full in _package_files():
            with open(full, "rb") as f:
                add(arcname, f.read())
        with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
            add(DIST_INFO + "/LICENSE", f.read())
        add(DIST_INFO + "/METADATA", _metadata().encode("utf-8"))
        add(DIST_INFO + "/WHEEL", _wheel_file().encode("utf-8"))
        add(DIST_INFO + "/top_level.txt", (NAME + "\n").encode("utf-8"))
        record = "\n".join(records + [DIST_INFO + "/RECORD,,"]) + "\n"
        whl.writestr(DIST_INFO + "/RECORD", record)
    return filename


# PEP 517 hooks.


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    target = os.path.join(metadata_directory, DIST_INFO)
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    with open(os.path.join(target, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return DIST_INFO


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """An editable install (PEP 660): a .pth file that puts the source tree on sys.path."""
    filename = "%s-%s-%s.whl" % (NAME, VERSION, TAG)
    pth = ("%s\n" % ROOT).encode("utf-8")
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        for arcname, data in [
            ("_pmail_editable.pth", pth),
            (DIST_INFO + "/METADATA", _metadata().encode("utf-8")),
            (DIST_INFO + "/WHEEL", _wheel_file().encode("utf-8")),
        ]:
            whl.writestr(arcname, data)
            records.append(_record_line(arcname, data))
        whl.writestr(DIST_INFO + "/RECORD", "\n".join(records + [DIST_INFO + "/RECORD,,"]) + "\n")
    return filename


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, VERSION)
    filename = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name in SDIST_FILES:
            tar.add(os.path.join(ROOT, name), arcname="%s/%s" % (base, name))
        for folder in SDIST_DIRS:
            for arcname, full in _walk(folder):
                tar.add(full, arcname="%s/%s" % (base, arcname))
        pkg_info = _metadata().encode("utf-8")
        info = tarfile.TarInfo("%s/PKG-INFO" % base)
        info.size = len(pkg_info)
        tar.addfile(info, io.BytesIO(pkg_info))
    return filename


def _walk(folder):
    for d, dirs, files in os.walk(os.path.join(ROOT, folder)):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for name in sorted(files):
            if not name.endswith((".pyc", ".pyo")):
                full = os.path.join(d, name)
                yield os.path.relpath(full, ROOT).replace(os.sep, "/"), full
