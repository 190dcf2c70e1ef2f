// What the web client's pages put on `window` for the console and the browser tests
// (tests/browser read them), declared for the type check.
import type { RoomClient } from "../web/js/connection.js";

declare global {
  interface Window {
    /** the table's connection (table.js) */
    rollhouse?: RoomClient;
    /** the table's story as read (table.js) */
    rollhouseStory?: unknown;
    /** the live lines the table showed (table.js) */
    rollhouseLive?: unknown;
    /** the replay's state (replay.js) */
    rollhouseReplay?: { count: number; [key: string]: unknown };
    rollhouseReplayLines?: unknown;
    /** "your turn" counters (your-turn.js) */
    rollhouseTurn?: { yours: boolean; chimes: number; notified: number };
  }
}
