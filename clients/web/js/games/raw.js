// The fallback for a game without a board: the mirrored view as JSON, plus its legal
// commands as buttons so the game is still playable.

export default {
  name: "raw",
  render(root, ctx) {
    const note = document.createElement("p");
    note.className = "muted";
    note.textContent = ctx.t("table.raw_view");
    const actions = document.createElement("div");
    actions.className = "actions raw-actions";
    for (const [i, command] of (ctx.you?.legal || []).entries()) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "btn small mono";
      b.dataset.testid = `legal-${i}`;
      b.disabled = !!ctx.ui.busy;
      b.textContent = JSON.stringify(command);
      b.addEventListener("click", () => ctx.send(command).catch(() => {}));
      actions.append(b);
    }
    const pre = document.createElement("pre");
    pre.className = "raw-view panel";
    pre.dataset.testid = "raw-view";
    pre.textContent = JSON.stringify(ctx.view, null, 2);
    root.replaceChildren(note, actions, pre);
  },
  describe(_previous, _view, events) {
    return events.map((e) => ({ key: e, params: {}, kind: "info", banner: false }));
  },
};
