// Rommé on the shared table-meld board (tablemelds/board.js): the first meld is
// staged group by group with its running total until it reaches the minimum, jokers
// on the table can be exchanged by dropping the natural card on them, and the
// scorecard shows penalties (doubled after a Hand-Rommé).

import { GAMES } from "../tablemelds/games.js";
import { mountTableMelds } from "../tablemelds/board.js";

export { STYLES } from "../tablemelds/board.js";

export function mount(el, ctx) {
  return mountTableMelds(el, ctx, GAMES.romme);
}
