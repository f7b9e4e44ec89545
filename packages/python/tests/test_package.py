"""The package itself: Python 3.9 syntax, the standard library only, an offline install into a new
venv, the key kept out of every repr, exception and log line, plain http:// only to loopback."""

import ast
import logging
import os
import subprocess
import sys
import traceback

import pytest

from conftest import PACKAGE
from pmail import Pmail, PmailConnectionError, PmailError

SOURCES = [
    os.path.join(folder, name)
    for top in ("pmail", "_build", "tests")
    for folder, _, names in os.walk(os.path.join(PACKAGE, top))
    for name in names
    if name.endswith(".py")
]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: os.path.relpath(p, PACKAGE))
def test_every_file_parses_as_python_3_9(path):
    with open(path, encoding="utf-8") as f:
        ast.parse(f.read(), filename=path, feature_version=(3, 9))


@pytest.mark.parametrize("path", [p for p in SOURCES if "/tests/" not in p], ids=lambda p: os.path.relpath(p, PACKAGE))
def test_the_package_imports_the_standard_library_only(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    assert names <= set(sys.stdlib_module_names) | {"pmail"}, names - set(sys.stdlib_module_names)


def test_it_installs_offline_into_a_new_venv_and_imports_from_there(tmp_path):
    venv = tmp_path / "v"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--no-index", "--disable-pip-version-check", PACKAGE],
        capture_output=True,
        text=True,
        env=dict(os.environ, PIP_CONFIG_FILE=os.devnull),
    )
    assert pip.returncode == 0, pip.stdout + pip.stderr
    run = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import pmail, pmail.types; print(pmail.__version__, pmail.__file__)"],
        capture_output=True,
        text=True,
        cwd=str(tmp_path),
    )
    assert run.returncode == 0, run.stderr
    version, where = run.stdout.split()
    assert version == "0.1.0"
    assert where.startswith(str(venv))


SECRET = "pm_test_the-secret-key-0123456789"


def test_the_key_is_in_no_repr_exception_or_log_line(stack, proxy, caplog):
    caplog.set_level(logging.DEBUG)
    client = Pmail(api_key=SECRET, base_url=proxy.url, sleep=lambda s: None)
    seen = [repr(client), repr(client._http), str(vars(client.messages))]
    proxy.answer(lambda m, p: True, 503, {"error": {"code": "unavailable", "retryable": True}})
    for call in (
        lambda: client.messages.get(stack.agent["id"], "msg_01aaaaaaaaaaaaaaaaaaaaaaaa"),
        lambda: Pmail(api_key=SECRET, base_url="http://127.0.0.1:1", retries=1, sleep=lambda s: None).messages.get("a", "b"),
        lambda: Pmail(api_key=SECRET, base_url="http://example.com"),
    ):
        with pytest.raises((PmailError, PmailConnectionError, ValueError)) as caught:
            call()
        e = caught.value
        seen += [str(e), repr(e), "".join(traceback.format_exception(type(e), e, e.__traceback__))]
        seen += [repr(vars(e))]
    seen += [r.getMessage() for r in caplog.records]
    assert any("retry" in r.getMessage() for r in caplog.records)
    assert not [s for s in seen if SECRET in s]


@pytest.mark.parametrize(
    "url",
    ["http://example.com", "http://10.0.0.1:8787", "http://192.168.1.2", "ftp://127.0.0.1", "https://user:pw@x.example"],
)
def test_plain_http_is_refused_except_to_loopback(url):
    with pytest.raises(ValueError):
        Pmail(api_key="k", base_url=url)


@pytest.mark.parametrize(
    "url", ["https://api.example.com", "http://127.0.0.1:8787", "http://127.0.0.2", "http://localhost:1", "http://[::1]:8787/"]
)
def test_https_and_loopback_are_taken(url):
    assert Pmail(api_key="k", base_url=url).base_url == url.rstrip("/")
