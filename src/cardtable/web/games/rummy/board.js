// Rummy on the shared table-meld board (tablemelds/board.js), with the classic
// game's switches (RUMMY in tablemelds/games.js): the discard pile is not fanned,
// meld values are not shown, and the scorecard reads who went out and what the
// others held. Its key line is the table-meld board's, which the how-to page shows
// for Rummy 500 and Rommé too.

import { GAMES } from "../tablemelds/games.js";
import { mountTableMelds } from "../tablemelds/board.js";

export { HELP, STYLES } from "../tablemelds/board.js";

export function mount(el, ctx) {
  return mountTableMelds(el, ctx, GAMES.rummy);
}
