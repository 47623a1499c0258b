// Rummy 500 on the shared table-meld board (rummy.js): the discard pile is
// fanned so a deeper card can be taken with everything above it (the deepest
// must be used at once), meld values are shown, lay-offs are credited to who
// laid them, and the scorecard reads "melded minus in hand".

import { GAMES } from "./rummy_games.js";
import { mountTableMelds } from "./rummy.js";

export { STYLES } from "./rummy.js";

export function mount(el, ctx) {
  return mountTableMelds(el, ctx, GAMES.rummy500);
}
