// Rummy 500 on the shared table-meld board (tablemelds/board.js): the discard pile
// is fanned so a deeper card can be taken with everything above it (the deepest
// must be used at once), meld values are shown, lay-offs are credited to who
// laid them, and the scorecard reads "melded minus in hand".

import { GAMES } from "../tablemelds/games.js";
import { mountTableMelds } from "../tablemelds/board.js";

export { STYLES } from "../tablemelds/board.js";

export function mount(el, ctx) {
  return mountTableMelds(el, ctx, GAMES.rummy500);
}
