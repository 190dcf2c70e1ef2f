"""deploy/monitoring/: the alert rules pass ``promtool check rules`` and their unit tests
(``promtool test rules``), every dashboard query is valid PromQL, and every series the
rules and the dashboard name is one a live server exports at /metrics.

Without Debian's ``promtool`` (package ``prometheus``) the promtool tests skip, unless
``ROLLHOUSE_REQUIRE_PROMTOOL`` is set (``.ci/run`` sets it and installs the package).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.support.required import missing

MONITORING = Path(__file__).resolve().parents[2] / "deploy" / "monitoring"
RULES = MONITORING / "alerts.yml"
RULE_TESTS = MONITORING / "alerts.test.yml"
DASHBOARD = MONITORING / "grafana-dashboard.json"
SERIES = re.compile(r"\b(rollhouse_[a-z_]+)")
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$instance": ".*"}


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        missing(
            "promtool is not installed (Debian package prometheus)", "ROLLHOUSE_REQUIRE_PROMTOOL"
        )
    return path


def run_promtool(*args: str) -> str:
    done = subprocess.run([promtool(), *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def rules() -> list[dict[str, Any]]:
    return [
        rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]
    ]


def dashboard_queries() -> list[str]:
    """Every PromQL expression of the dashboard: panel targets and template queries."""
    board = json.loads(DASHBOARD.read_text())
    panels = [p for p in board["panels"] if p["type"] != "row"]
    queries = [t["expr"] for p in panels for t in p["targets"]]
    for variable in board["templating"]["list"]:
        if variable["type"] == "query":
            queries.append(variable["definition"])
    return queries


def named_series(expressions: list[str]) -> set[str]:
    return {name for expr in expressions for name in SERIES.findall(expr)}


def exported_series(metrics_text: str) -> set[str]:
    """The series a /metrics text declares, histograms with their three suffixes."""
    names: set[str] = set()
    for line in metrics_text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            names.add(name)
            if kind == "histogram":
                names |= {f"{name}_bucket", f"{name}_sum", f"{name}_count"}
    return names


def test_the_rules_pass_promtool_check() -> None:
    """``promtool check rules`` accepts deploy/monitoring/alerts.yml."""
    assert "SUCCESS" in run_promtool("check", "rules", str(RULES))


def test_the_scrape_config_passes_promtool_check() -> None:
    """``promtool check config`` accepts deploy/monitoring/prometheus.yml and its rules."""
    run_promtool("check", "config", str(MONITORING / "prometheus.yml"))


def test_the_rules_unit_tests_pass_and_cover_every_alert() -> None:
    """``promtool test rules`` passes, and every alert of the rules is tested there."""
    run_promtool("test", "rules", str(RULE_TESTS))
    tested = {
        case["alertname"]
        for test in yaml.safe_load(RULE_TESTS.read_text())["tests"]
        for case in test["alert_rule_test"]
    }
    assert {rule["alert"] for rule in rules()} <= tested


def test_every_dashboard_query_is_valid_promql(tmp_path: Path) -> None:
    """Each panel's query (Grafana's variables given values) passes promtool's parser,
    as a recording rule."""
    recorded = []
    for i, query in enumerate(dashboard_queries()):
        for variable, value in GRAFANA_VARIABLES.items():
            query = query.replace(variable, value)
        if query.startswith("label_values("):  # Grafana's own function: its series argument
            query = query.removeprefix("label_values(").split(",")[0]
        recorded.append({"record": f"rollhouse:dashboard:{i}", "expr": query})
    path = tmp_path / "dashboard-queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": recorded}]}))
    assert f"SUCCESS: {len(recorded)} rules found" in run_promtool("check", "rules", str(path))


def test_the_dashboard_shows_each_node_and_what_the_issue_asks() -> None:
    """Every panel's query keeps to the selected nodes, and the dashboard covers rooms,
    connections, commands and rejections by code, ack and patch latency, store append
    latency and errors, failovers and relay traffic."""
    queries = [q for q in dashboard_queries() if not q.startswith("label_values(")]
    assert all('instance=~"$instance"' in q for q in queries)
    wanted = {
        "rollhouse_rooms_live", "rollhouse_connections", "rollhouse_commands_total",
        "rollhouse_rejections_total", "rollhouse_ack_seconds_bucket",
        "rollhouse_fanout_seconds_bucket", "rollhouse_append_seconds_bucket",
        "rollhouse_append_failures_total", "rollhouse_store_up", "rollhouse_failovers_total",
        "rollhouse_forwarded_total", "rollhouse_relay_seconds_bucket",
    }  # fmt: skip
    assert wanted <= named_series(queries)
    assert any("by (code)" in q and "rollhouse_rejections_total" in q for q in queries)


async def test_every_series_named_is_one_the_server_exports(live_server) -> None:  # type: ignore[no-untyped-def]
    """The rules' and the dashboard's series are all declared by a live server's /metrics."""
    async with httpx.AsyncClient(timeout=10) as http:
        exported = exported_series((await http.get(live_server.url + "/metrics")).text)
    named = named_series([rule["expr"] for rule in rules()] + dashboard_queries())
    assert named, "no series found in the rules and the dashboard"
    assert named - exported == set()
