// A bot that plays any Rollhouse game to the end: `node examples/bot.js http://127.0.0.1:8000`
import { Client, CommandRejected, createRoom, wsUrl } from "@rollhouse/client";

const base = process.argv[2] ?? "http://127.0.0.1:8000";
const { room } = await createRoom(base, "rollie", 2, { room: { bots: 1, bot_delay: 0 } });
const me = await new Client(wsUrl(base), room, { name: "bot" }).connect();
for (;;) {
  const view = await me.waitFor((v) => v.room.status === "finished" || (v.you?.legal.length ?? 0) > 0, { timeout: null });
  if (view.room.status === "finished") break;
  const legal = view.you?.legal ?? []; // e.g. [{type: "take", value: 5}, {type: "secure"}]
  try {
    await me.send(legal[Math.floor(Math.random() * legal.length)]); // resolves on ack
  } catch (error) {
    if (!(error instanceof CommandRejected)) throw error; // e.g. rollie/pile_empty: choose again
    console.log("rejected:", error.code);
  }
}
console.log("scores:", me.view?.game.result?.scores);
me.close();
