"""The shared mirror vectors (tests/vectors/mirror/*.json) run in chromium through the JS SDK's
Mirror, as the web client imports it (``@rollhouse/client`` through the page's import map,
served from clients/js/src at /sdk/)."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_asyncio

from tests.browser.conftest import NewPage
from tests.support.server import LiveServer
from tests.vectors.compare import load, mismatches

pytestmark = [pytest.mark.browser, pytest.mark.timeout(30)]

VECTORS = load()

# Runs every vector through a fresh mirror (the SDK's Mirror, or a broken one) and returns,
# per vector, per step, the step as plain data named as in the vectors' "expect".
RUN = """async ([vectors, broken]) => {
  const { Mirror, applyPatch } = await import('@rollhouse/client');
  // applies any patch that fits, ignoring from/to: must fail the gap vectors
  class AppliesEveryPatch extends Mirror {
    receive(msg) {
      if (msg.type !== 'patch') return super.receive(msg);
      try {
        const previous = this.view;
        this.view = applyPatch(this.view, msg.ops);
        this.seq = msg.to;
        return [{type: 'view', seq: msg.to, events: msg.events, view: this.view, previous}];
      } catch (_) { return []; }
    }
  }
  const observe = (m, actions) => {
    const seen = {seq: m.seq, view: m.view, seat: m.seat, seat_token: m.seatToken, game: m.game,
      role: m.role, presence: m.presence, resyncing: m.resyncing, resume_seq: m.resumeSeq,
      welcomed: false, changed: null, resync_requested: false, answers: {}, error: null};
    for (const a of actions) {
      if (a.type === 'welcomed') seen.welcomed = true;
      else if (a.type === 'view') seen.changed = a.events;
      else if (a.type === 'resync') {
        if (seen.resync_requested) throw new Error('two resyncs in one step');
        seen.resync_requested = true;
      } else if (a.type === 'ack') seen.answers[a.id] = {ack: a.seq};
      else if (a.type === 'reject') {
        const r = a.reject;
        seen.answers[a.id] = {reject: {code: r.code, message: r.message, details: r.details || {}}};
      } else if (a.type === 'error') seen.error = {code: a.error.code, fatal: a.error.fatal};
    }
    return structuredClone(seen);
  };
  return vectors.map((v) => {
    const m = broken ? new AppliesEveryPatch() : new Mirror();
    return v.steps.map((step) => observe(m, m.receive(structuredClone(step.receive))));
  });
}"""


async def run_vectors(page: Any, broken: bool = False) -> dict[str, list[str]]:
    """Each vector's mismatches (``step N: ...``), keyed by name."""
    observed = await page.evaluate(RUN, [VECTORS, broken])
    return {
        vector["name"]: [
            f"step {n}: {m}"
            for n, (step, seen) in enumerate(zip(vector["steps"], steps, strict=True))
            for m in mismatches(step["expect"], seen)
        ]
        for vector, steps in zip(VECTORS, observed, strict=True)
    }


@pytest_asyncio.fixture(loop_scope="module")
async def page(live_server: LiveServer, new_page: NewPage) -> Any:
    page = await new_page(None)
    await page.goto(live_server.url + "/")
    return page


async def test_view_mirror_follows_every_vector(page: Any) -> None:
    """Every step of every vector: the SDK mirror's state and actions, in the browser."""
    failures = await run_vectors(page)
    assert failures == {name: [] for name in failures}
    assert len(failures) == len(VECTORS) > 0


async def test_a_broken_view_mirror_fails_the_vectors(page: Any) -> None:
    """The vectors can fail in the browser too: ignoring from/to breaks the gap scenarios."""
    failing = {name for name, found in (await run_vectors(page, broken=True)).items() if found}
    assert {"gap-then-resync", "old-patch-ignored", "bad-op-resyncs"} <= failing
