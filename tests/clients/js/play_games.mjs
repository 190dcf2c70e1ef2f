// Plays whole games with the packed @rollhouse/client, as a user's program would:
//   node play_games.mjs http://127.0.0.1:PORT rollie roll-player roll-builder
// Each game: a room with a hosted bot (Roll Builder: solo), this client in seat 0 choosing
// random legal moves; after its second answered command it sends one more and drops the socket
// at once (the command unanswered), then must resume and get that command's answer. A move
// refused for its rate (room/rate_limited: the server allows 30 a second) waits a little.
// Prints one JSON line per game for tests/clients/test_js_sdk.py to check.
import { Client, CommandRejected, createRoom, wsUrl } from "@rollhouse/client";

const [base, ...games] = process.argv.slice(2);
const SETUP = {
  rollie: { seats: 2, options: { rounds: 4 } },
  "roll-player": { seats: 2, options: {} },
  "roll-builder": { seats: 1, options: {} },
};
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31); // repeatable picks

for (const game of games) {
  const started = Date.now();
  const { seats, options } = SETUP[game];
  const bots = seats - 1;
  const { room } = await createRoom(base, game, seats, { options, room: { bots, bot_delay: 0, clock: 0 } });
  const me = await new Client(wsUrl(base), room, { name: "js", encoding: game === "roll-player" ? "json" : "msgpack" }).connect();
  const welcomes = [];
  me.on("welcome", (w) => welcomes.push({ seq: w.seq, snapshot: w.view !== null }));
  let answered = 0;
  const rejects = {};
  let dropped = null;
  for (;;) {
    const view = await me.waitFor((v) => v.room.status === "finished" || (v.you?.legal.length ?? 0) > 0, { timeout: 20000 });
    if (view.room.status === "finished") break;
    const legal = view.you.legal;
    const command = legal[Math.floor(random() * legal.length)];
    const id = me.nextId();
    const answer = me.send(command, id);
    if (answered === 2 && dropped === null) {
      dropped = { id, seq: me.seq, last_seq: me.mirror.resumeSeq }; // what the next hello says
      me.drop(); // the command may or may not have reached the server: its id settles it
    }
    try {
      await answer;
    } catch (error) {
      if (!(error instanceof CommandRejected)) throw error;
      rejects[error.code] = (rejects[error.code] ?? 0) + 1;
      if (error.code === "room/rate_limited") await new Promise((resolve) => setTimeout(resolve, 250));
    }
    answered += 1;
  }
  const spectator = await (await fetch(`${base}/api/rooms/${room}/view`)).json();
  console.log(JSON.stringify({
    game,
    room,
    seq: me.seq,
    answered,
    rejects,
    reconnects: me.reconnects,
    dropped,
    welcomes,
    status: me.view.room.status,
    room_part_agrees: JSON.stringify(me.view.room) === JSON.stringify(spectator.view.room) && me.seq === spectator.seq,
    ms: Date.now() - started,
  }));
  me.close();
}
