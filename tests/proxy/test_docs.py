"""docs/proxies.md shows the nginx and HAProxy configs the tests run,
verbatim: a change to one that is not made to the other fails here."""

import re

from conftest import ROOT


def block(language: str) -> str:
    text = (ROOT / "docs" / "proxies.md").read_text()
    (found,) = re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)
    return found


def test_the_docs_show_the_configs_the_tests_run():
    assert block("nginx") == (ROOT / "deploy" / "nginx" / "crdstore.conf").read_text()
    assert block("haproxy") == (ROOT / "deploy" / "haproxy" / "crdstore.cfg").read_text()
