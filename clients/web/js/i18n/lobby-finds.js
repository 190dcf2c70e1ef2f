// The lobby's strings for finding games (issue 24): the "Now" tab, rooms named by their
// game, players and state, rooms that expired. English and Brazilian Portuguese.

export default {
  en: {
    "common.bot_n": "bot {n}",
    "lobby.filter.now": "Now",
    "lobby.filter.empty.now": "No game is waiting or being played. Start one!",
    "lobby.col.people": "Here now",
    "lobby.people": "{players} playing · {watching} watching",
    "lobby.seats_bot": "{taken}/{seats} (1 bot)",
    "lobby.seats_bots": "{taken}/{seats} ({bots} bots)",
    "lobby.free_one": "1 seat free",
    "lobby.free_n": "{n} seats free",
    "lobby.expired_one": "1 room expired (still waiting, nobody there for {min} minutes): see All.",
    "lobby.expired_n": "{n} rooms expired (still waiting, nobody there for {min} minutes): see All.",
  },
  "pt-BR": {
    "common.bot_n": "robô {n}",
    "lobby.filter.now": "Agora",
    "lobby.filter.empty.now": "Nenhum jogo esperando ou em andamento. Comece um!",
    "lobby.col.people": "Aqui agora",
    "lobby.people": "{players} jogando · {watching} assistindo",
    "lobby.seats_bot": "{taken}/{seats} (1 robô)",
    "lobby.seats_bots": "{taken}/{seats} ({bots} robôs)",
    "lobby.free_one": "1 lugar livre",
    "lobby.free_n": "{n} lugares livres",
    "lobby.expired_one": "1 mesa expirou (ainda esperando, ninguém nela por {min} minutos): veja Todas.",
    "lobby.expired_n": "{n} mesas expiraram (ainda esperando, ninguém nelas por {min} minutos): veja Todas.",
  },
};
