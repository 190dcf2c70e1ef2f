// The story's own strings (js/story.js, issue 24: the whole story, "your turn", the
// guided first game): seats taken, players away and back, your turn's alerts.
// English and Brazilian Portuguese.

export default {
  en: {
    "story.seated": "{name} sat down at seat {n}.",
    "story.seated_bot": "{name} (a bot) sat down at seat {n}.",
    "story.left": "{name} left the table.",
    "story.returned": "{name} is back.",
    "story.rematch": "A rematch was asked for.",
    "story.started": "Every seat is taken: the game begins.",
    "story.loading": "Reading what happened so far…",
    "story.failed": "What happened so far could not be read; new moves still show here.",
    "turn.title": "● Your turn",
    "turn.title_hurry": "⏰ {s} s",
    "turn.notify_title": "Rollhouse: your turn",
    "turn.menu": "Alerts for your turn",
    "turn.sound": "Sound when it is your turn",
    "turn.notify": "Notify me when this tab is hidden",
    "turn.notify_denied": "The browser blocks notifications for this site; allow them in its settings.",
  },
  "pt-BR": {
    "story.seated": "{name} sentou no lugar {n}.",
    "story.seated_bot": "{name} (um robô) sentou no lugar {n}.",
    "story.left": "{name} saiu da mesa.",
    "story.returned": "{name} voltou.",
    "story.rematch": "Pediram uma revanche.",
    "story.started": "Todos os lugares ocupados: o jogo começa.",
    "story.loading": "Lendo o que aconteceu até agora…",
    "story.failed": "Não deu para ler o que aconteceu até agora; as jogadas novas ainda aparecem aqui.",
    "turn.title": "● Sua vez",
    "turn.title_hurry": "⏰ {s} s",
    "turn.notify_title": "Rollhouse: sua vez",
    "turn.menu": "Avisos da sua vez",
    "turn.sound": "Som quando for a sua vez",
    "turn.notify": "Notificar quando esta aba estiver escondida",
    "turn.notify_denied": "O navegador bloqueia notificações deste site; permita nas configurações dele.",
  },
};
