// The guided first game's strings (js/coach.js): what to do at each step of a Rollie
// game and why. English and Brazilian Portuguese.

export default {
  en: {
    "coach.learn": "Learn as you play",
    "coach.title": "Your first game",
    "coach.hide": "Hide the tips",
    "coach.waiting": "The bot is taking its seat…",
    "coach.you_roll": "You are the First player (⚄): press Roll to roll the two dice for everyone.",
    "coach.they_roll": "{name} rolls the dice for everyone this time. Watch the two faces.",
    "coach.after_rollie": "That was a Rollie: two identical faces. Every Bet holding that value crashed back to the Bank, and the round ended.",
    "coach.take_first": "Two different faces: tap a die to take a bill of that value into your Bet. An R lets you choose any value.",
    "coach.take_or_secure": "Your Bet holds {total}. Take one more bill to grow it, or press Secure to move it into your Wallet for good.",
    "coach.risk": "Why secure? If a roll shows two identical faces, every Bet holding that value crashes back to the Bank. Only your Wallet is safe.",
    "coach.only_secure": "No pile matches the dice any more: all you can do now is Secure.",
    "coach.decided": "You decided. When everyone has, the dice pass to the next player.",
    "coach.secured": "Your Bet is safe in your Wallet and you took a Start token if one was left. You sit out the rest of this round.",
    "coach.bonus": "At the end the most bills of each colour win bonus tokens: even −5 bills pay off (100 points for the most).",
    "coach.over": "Game over: only Wallets count, plus the bonus tokens. Play again from the buttons above, or try a full table from the lobby.",
  },
  "pt-BR": {
    "coach.learn": "Aprenda jogando",
    "coach.title": "Seu primeiro jogo",
    "coach.hide": "Esconder as dicas",
    "coach.waiting": "O robô está sentando…",
    "coach.you_roll": "Você é o Primeiro jogador (⚄): aperte Rolar para rolar os dois dados para todos.",
    "coach.they_roll": "{name} rola os dados para todos desta vez. Observe as duas faces.",
    "coach.after_rollie": "Isso foi um Rollie: duas faces iguais. Toda Aposta com esse valor quebrou e voltou ao Banco, e a rodada terminou.",
    "coach.take_first": "Faces diferentes: toque num dado para pegar uma nota desse valor para a sua Aposta. Um R deixa você escolher qualquer valor.",
    "coach.take_or_secure": "Sua Aposta tem {total}. Pegue mais uma nota para aumentá-la, ou aperte Garantir para levá-la à Carteira de vez.",
    "coach.risk": "Por que garantir? Se uma rolagem mostrar duas faces iguais, toda Aposta com esse valor quebra e volta ao Banco. Só a Carteira está segura.",
    "coach.only_secure": "Nenhuma pilha combina mais com os dados: agora só dá para Garantir.",
    "coach.decided": "Você decidiu. Quando todos decidirem, os dados passam para o próximo jogador.",
    "coach.secured": "Sua Aposta está segura na Carteira e você pegou uma ficha de Início, se havia. Você fica fora do resto desta rodada.",
    "coach.bonus": "No fim, quem tem mais notas de cada cor ganha fichas de bônus: até as notas de −5 compensam (100 pontos para quem tem mais).",
    "coach.over": "Fim de jogo: só a Carteira conta, mais as fichas de bônus. Jogue de novo pelos botões acima, ou tente uma mesa completa pelo saguão.",
  },
};
