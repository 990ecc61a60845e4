"""docs/proxies.md shows the nginx and HAProxy configs the tests run,
verbatim, and the compose stack's gateway runs the same nginx config
filled in for the stack: a change to one that is not made to the others
fails here."""

import re

from conftest import ROOT, render

# What deploy/nginx/compose.conf fills deploy/nginx/crdstore.conf with.
COMPOSE = {
    "CRDSTORE_GRPC": "crdstore:50051",
    "CRDSTORE_HTTP": "crdstore:8080",
    "LISTEN_GRPC": "0.0.0.0:50443",
    "LISTEN_HTTP": "0.0.0.0:8443",
    "HTPASSWD": "/etc/nginx/crdstore/local/htpasswd",
    "TOKENS": "/etc/nginx/crdstore/local/tokens",
    "TLS_CERT": "/etc/nginx/crdstore/local/tls.crt",
    "TLS_KEY": "/etc/nginx/crdstore/local/tls.key",
}


def block(language: str) -> str:
    text = (ROOT / "docs" / "proxies.md").read_text()
    (found,) = re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)
    return found


def test_the_docs_show_the_configs_the_tests_run():
    assert block("nginx") == (ROOT / "deploy" / "nginx" / "crdstore.conf").read_text()
    assert block("haproxy") == (ROOT / "deploy" / "haproxy" / "crdstore.cfg").read_text()


def test_the_compose_gateway_runs_the_tested_config():
    rendered = render(ROOT / "deploy" / "nginx" / "crdstore.conf", **COMPOSE)
    assert (ROOT / "deploy" / "nginx" / "compose.conf").read_text() == rendered
