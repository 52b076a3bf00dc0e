"""`docs-url`: a `{code}` template linking each rule's page, from pyproject,
`--docs-url` or the server's `docsUrl`; validated (http, https or file, with
`{code}`, exit 2 otherwise); used by JSON `url`, SARIF `helpUri`, the
server's `codeDescription.href` and hover; no link by default; `github` and
`gitlab` (no field for a link) do not change."""
import json
import os

import pytest

from flake8_tilelang.output import machine, rule_url
from flake8_tilelang.settings import ConfigError, build_settings, docs_url_setting, read_config
from test_cli import kernel, run

TEMPLATE = "https://example.org/rules/{code}.md"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "k.py").write_text(kernel())
    (tmp_path / "broken.py").write_text("import tilelang\ndef f(:\n")  # E999: no page of ours
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _pyproject(repo, value):
    (repo / "pyproject.toml").write_text("[tool.flake8-tilelang]\ndocs-url = %s\n" % json.dumps(value))


def _check(capsys, fmt, *argv):
    return run(["check", "--no-cache", "--output-format", fmt, "k.py", "broken.py"] + list(argv), capsys)


# -- the setting ----------------------------------------------------------------------

@pytest.mark.parametrize("value", [
    TEMPLATE, "http://intranet/lint/{code}", "file:///srv/docs/rules/{code}.md",
    "https://github.com/me/repo/blob/0123abc/docs/rules/{code}.md", "https://x.org/?rule={code}",
])
def test_valid_templates(value):
    assert docs_url_setting(value, "w") == value


@pytest.mark.parametrize("value, why", [
    ("https://example.org/rules/TLA001.md", "has no {code}"),
    ("ftp://example.org/{code}", "scheme must be http, https or file, got 'ftp'"),
    ("javascript:alert(1)//{code}", "got 'javascript'"),
    ("docs/rules/{code}.md", "got none"),
    ("https:///{code}", "has no host"),
    ("file:{code}.md", "absolute path"),
    ("https://example.org/{code}/{name}", "only {code} is replaced"),
    ("https://example.org/{CODE}/{code}", "only {code} is replaced"),
    ("https://example.org/my rules/{code}", "spaces or control characters"),
    ("https://example.org/{code}\x1b[2J", "spaces or control characters"),
    ("https://example.org/" + "a" * 3000 + "{code}", "above the limit"),
    (["https://example.org/{code}"], "expected a string, got a list"),
    (7, "expected a string, got an integer"),
])
def test_invalid_templates_are_config_errors(value, why):
    with pytest.raises(ConfigError, match=None) as exc:
        docs_url_setting(value, "--docs-url")
    assert why in str(exc.value) and str(exc.value).startswith("--docs-url: ")


def test_empty_means_no_link_and_the_flag_overrides_the_config(repo):
    assert docs_url_setting("", "w") is None
    _pyproject(repo, TEMPLATE)
    assert read_config(str(repo / "pyproject.toml"), ["TLA001"])["docs-url"] == TEMPLATE

    class Args:
        docs_url = None

    assert build_settings(Args(), str(repo)).docs_url == TEMPLATE
    Args.docs_url = ""
    assert build_settings(Args(), str(repo)).docs_url is None
    Args.docs_url = "https://other.org/{code}"
    assert build_settings(Args(), str(repo)).docs_url == "https://other.org/{code}"


def test_rule_url_only_for_tla_codes():
    assert rule_url("TLA001", TEMPLATE) == "https://example.org/rules/TLA001.md"
    assert rule_url("E999", TEMPLATE) is None and rule_url("F401", TEMPLATE) is None
    assert rule_url("TLA001") is None  # no template, no link
    # the code is substituted, never formatted: no field or attribute access
    assert rule_url("TLA002", "https://x.org/{code}/{code}") == "https://x.org/TLA002/TLA002"


def test_bad_config_value_exits_2_naming_the_file_and_key(repo, capsys):
    _pyproject(repo, "ftp://example.org/{code}")
    code, out, err = _check(capsys, "json")
    assert code == 2 and out == ""
    assert "pyproject.toml: [tool.flake8-tilelang] docs-url: 'ftp://example.org/{code}': the scheme" in err
    (repo / "pyproject.toml").unlink()
    code, out, err = _check(capsys, "json", "--docs-url", "https://example.org/rules")
    assert code == 2 and "--docs-url: 'https://example.org/rules' has no {code}" in err


# -- each output ----------------------------------------------------------------------

def test_json_url(repo, capsys):
    code, out, _ = _check(capsys, "json")
    assert code == 1
    findings = json.loads(out)
    assert {f["code"] for f in findings} >= {"TLA001", "E999"}
    assert all(f["url"] is None for f in findings)  # default: no link
    _pyproject(repo, TEMPLATE)
    _, out, _ = _check(capsys, "json")
    for f in json.loads(out):
        assert f["url"] == (TEMPLATE.replace("{code}", f["code"]) if f["code"].startswith("TLA") else None)
    _, out, _ = _check(capsys, "json", "--docs-url", "")
    assert all(f["url"] is None for f in json.loads(out))


def test_json_lines_url(repo, capsys):
    _, out, _ = _check(capsys, "json-lines", "--docs-url", "file:///srv/rules/{code}.md")
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["url"] for r in rows if r["code"] == "TLA001"] == ["file:///srv/rules/TLA001.md"]
    assert [r["url"] for r in rows if r["code"] == "E999"] == [None]


def test_sarif_help_uri(repo, capsys):
    _, out, _ = _check(capsys, "sarif")
    driver = json.loads(out)["runs"][0]["tool"]["driver"]
    rules = driver["rules"]
    assert rules and not any("helpUri" in r for r in rules)
    assert "informationUri" not in driver  # not on PyPI: no link to a page that is not ours
    assert all(r["help"]["markdown"].startswith("# " + r["id"]) for r in rules)  # the page itself
    _pyproject(repo, TEMPLATE)
    _, out, _ = _check(capsys, "sarif")
    run_ = json.loads(out)["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    for r in rules:  # E902 / E999 (the command line's own codes) have no page of ours
        assert r.get("helpUri") == ("https://example.org/rules/%s.md" % r["id"] if r["id"].startswith("TLA")
                                    else None)
    assert {"TLA001", "E999"} <= {r["id"] for r in rules}
    assert "TLA001" in {r["ruleId"] for r in run_["results"]}


@pytest.mark.parametrize("fmt", ["github", "gitlab", "concise", "full"])
def test_formats_without_a_link_field_do_not_change(repo, capsys, fmt):
    _, plain, _ = _check(capsys, fmt)
    _, linked, _ = _check(capsys, fmt, "--docs-url", TEMPLATE)
    assert plain == linked and "example.org" not in linked


def test_machine_formatters_take_the_template():
    class F:
        path, line, char_col, end_line, char_end_col = "k.py", 3, 5, 3, 9
        code, message, severity, noqa_row, source = "TLA002", "m", "warning", 3, "x"
        fix = help = end_source = None

    obj = machine.json_object(F(), lambda p: "/abs/" + p, "https://d.org/{code}")
    assert obj["url"] == "https://d.org/TLA002"
    assert machine.json_object(F(), lambda p: p)["url"] is None


def test_config_shows_docs_url(repo, capsys):
    code, out, _ = run(["config", "--output-format", "toml"], capsys)
    assert code == 0 and 'docs-url = ""  # default: no link' in out
    _pyproject(repo, TEMPLATE)
    _, out, _ = run(["config", "--output-format", "toml"], capsys)
    assert 'docs-url = "%s"\n' % TEMPLATE in out
    _, out, _ = run(["config", "--output-format", "json", "--docs-url", "http://h/{code}"], capsys)
    assert json.loads(out)["docs-url"] == "http://h/{code}"


# -- language server ------------------------------------------------------------------

lsp = pytest.importorskip("lsprotocol")


def test_server_code_description_hover_and_errors(tmp_path):
    from lsp_harness import Client
    from lsp_harness import run as run_async
    from test_server import BARRIER_LINE, KERNEL, project

    root = project(tmp_path, {"a/pyproject.toml": '[tool.flake8-tilelang]\ndocs-url = "%s"\n' % TEMPLATE,
                              "a/k.py": KERNEL, "b/k.py": KERNEL})

    async def scenario(options):
        c = Client()
        await c.start(root, options=options)
        out = {}
        for name in ("a", "b"):
            uri = c.open(os.path.join(root, name, "k.py"))
            diags = [d for d in await c.diagnostics(uri, version=1) if d.code == "TLA002"]
            hover = await c.hover(uri, BARRIER_LINE, diags[0].range.start.character + 1)
            out[name] = (diags[0].code_description.href if diags[0].code_description else None,
                         hover.contents.value)
        messages = list(c.messages)
        await c.stop()
        return out, messages

    out, messages = run_async(scenario(None))
    assert not messages
    href, hover = out["a"]  # a/pyproject.toml's template
    assert href == "https://example.org/rules/TLA002.md"
    assert "[TLA002 documentation](https://example.org/rules/TLA002.md)" in hover
    href, hover = out["b"]  # no template: no link, the hover names the command
    assert href is None and "Full page: `flake8-tilelang rule TLA002`" in hover

    # the client's option overrides every pyproject
    out, _ = run_async(scenario({"settings": {"docsUrl": "file:///srv/rules/{code}.md"}}))
    assert [out[n][0] for n in "ab"] == ["file:///srv/rules/TLA002.md"] * 2

    # a bad option: said (as the flag it stands for), and every file is still checked, without it
    out, messages = run_async(scenario({"docsUrl": "ftp://x/{code}"}))
    assert messages and all("--docs-url: 'ftp://x/{code}': the scheme" in m for m in messages)
    assert out["b"][0] is None and "Full page:" in out["b"][1]
