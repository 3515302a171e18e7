"""An always-valid test for paired binary outcomes: a mixture sequential probability ratio test.

Sample i of A on a task is paired with sample i of B. If the two agents solve every task equally
often, then whenever a pair disagrees, which agent won is a fair coin, whatever the task and
however many pairs came before. The e-value is the likelihood ratio of the pairs' winners under
a Beta(1/2, 1/2) mixture over "B wins a disagreement with probability theta" against theta = 1/2.
Under that null it is a nonnegative martingale with mean one, so by Ville's inequality it ever
reaches 1/alpha with probability at most alpha: a user may look after every new sample and stop
as soon as it does, and 1/e is a p-value that stays valid under such optional stopping. It
depends only on the counts, not on the order the pairs arrived in.
"""

from __future__ import annotations

import math

from scipy import special

# Jeffreys' prior, the Krichevsky-Trofimov mixture: near-minimax regret against the best fixed
# theta, so little power is lost against any particular effect size.
PRIOR = 0.5


def mixture_e_value(a_wins: int, b_wins: int) -> float:
    """E-value against "neither agent wins disagreements more often" from the pairs A won alone
    and the pairs B won alone; 1.0 with no disagreement."""
    if a_wins < 0 or b_wins < 0:
        raise ValueError(f"counts must be non-negative, got {a_wins=}, {b_wins=}")
    m = a_wins + b_wins
    log_e = (m * math.log(2.0) + float(special.betaln(b_wins + PRIOR, a_wins + PRIOR))
             - float(special.betaln(PRIOR, PRIOR)))
    return math.exp(min(log_e, 700.0))  # past e^700 the float overflows; the p-value is 0 anyway


def anytime_p_value(a_wins: int, b_wins: int) -> float:
    """min(1, 1/e): valid at any stopping time, however often the data were looked at."""
    return min(1.0, 1.0 / mixture_e_value(a_wins, b_wins))
