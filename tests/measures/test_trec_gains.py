"""trec_eval's custom gains (``trec_eval -m ndcg.L=G,...``, ``fastndcg eval --gain``).

* The rule itself (:mod:`fastndcg.reference._trec_gains`): hand-worked cases, and
  glibc's ``qsort`` order for trec_eval's comparator.
* Golden numbers from the real trec_eval 10.0 (usnistgov/trec_eval f4253652,
  built with gcc 12.2 on Debian 12, glibc 2.36, output patched to %.17g for the
  GOLDEN_* tables; the 4-decimal tables are its unpatched output): a small
  hand-made topic set (graded and negative judgments, unjudged and tied
  documents, a topic without relevant documents, a topic missing from the run
  with ``-c``), trec_eval's own ``qrels.rel_level`` test file, and Robust 2003.
* The compiled path against the reference on tie-heavy generated data, and
  against pytrec_eval (pytrec-eval-terrier 0.5.11, trec_eval 9.0.x inside),
  which takes ``ndcg.L=G`` measures.
* The front-ends: ``aligned_ndcg(gains=)``, ``align_chunk``,
  ``evaluate_run`` (streamed), ``fastndcg eval --gain`` (in memory and
  ``--stream``), the one warning, the errors and the textbook rule of the
  other presets.
"""
from __future__ import annotations

import math
import random
import warnings

import numpy as np

from fastndcg.measures._aligned import aligned_mean_ndcg, aligned_ndcg
import pytest

import fastndcg
import fastndcg.io as readers
from fastndcg.io import _files
from fastndcg.reference import _trec_gains as ref
from fastndcg.cli import main
from fastndcg.cli._options import EXIT_OK, EXIT_USAGE
from fastndcg.stream._chunks import NDCGAccumulator
from fastndcg.stream._trec_stream import align_chunk, evaluate_run
from fastndcg.measures import TrecGainQuirkWarning
from fastndcg.measures._trec_gain_scoring import GainScorer
from fastndcg.measures._trec_gain_specs import as_gains, gain_rules, parse_gains, textbook_convention
from fastndcg.measures._trec_gain_resolution import resolve_trec_gains
from conftest import require
import fastndcg.reference

pytestmark = [pytest.mark.peers]

pytrec_eval = require("pytrec_eval")

# ----------------------------------------------------------------------------- the rule


def test_c_int_difference_truncates_and_overflows_as_x86_64():
    assert ref.c_int_difference(0.5, 0.0) == 0 and ref.c_int_difference(0.0, 0.9) == 0
    assert ref.c_int_difference(2.5, 1.0) == 1 and ref.c_int_difference(1.0, 2.5) == -1
    assert ref.c_int_difference(2.0 ** 31 - 0.5, 0.0) == 2 ** 31 - 1
    assert ref.c_int_difference(2.0 ** 31, 0.0) == -2 ** 31           # overflow: "smaller"
    assert ref.c_int_difference(1e300, 1.0) == -2 ** 31
    assert ref.c_int_difference(-2.0 ** 31 - 0.5, 0.0) == -2 ** 31
    assert ref.c_int_difference(-2.0 ** 31 - 1.0, 0.0) == -2 ** 31
    assert ref.c_int_difference(math.nan, 0.0) == -2 ** 31


# qsort of {long, long, double} entries by trec_eval's comp_rel_gain, as the
# glibc 2.36 binary orders them (input gains -> indices in sorted order)
GLIBC_QSORT = [
    ([0.5, 0, 2], [0, 1, 2]),
    ([2, 0.5, 0], [1, 2, 0]),
    ([0.9, 0.2, 0.5, 0, 1, 2, 3], [0, 1, 2, 3, 4, 5, 6]),
    ([2147483648, 0, 1, 2], [2, 3, 0, 1]),
    ([1e300, 0, 1], [0, 1, 2]),
    ([0.3, 1.2, 0.6, 1.9, 0], [0, 1, 2, 4, 3]),
    ([-0.5, 0.4, 1.3, -1.2, 0.2, 2.1], [0, 3, 1, 4, 2, 5]),
    ([3, 2.5, 2, 1.5, 1, 0.5, 0, -0.5, -1], [6, 7, 8, 4, 5, 2, 3, 0, 1]),
]


@pytest.mark.parametrize("gains, order", GLIBC_QSORT)
def test_glibc_qsort_order_of_trec_eval_comparator(gains, order):
    items = list(enumerate(float(g) for g in gains))
    got = ref.glibc_qsort(items, lambda a, b: ref.c_int_difference(a[1], b[1]))
    assert [i for i, _ in got] == order


def test_gain_entries_walk_and_level_gains_by_hand():
    # 1=0.5 with judged levels 0, 1, 2: entries (1,.5),(0,0),(2,2) compare equal
    # pairwise except 0 < 2 and .5 < 2: the order stays; the walk takes level 2
    # and stops at level 0 (gain 0) before level 1.
    entries = ref.trec_gain_entries([(1, 0.5)], [4, 3, 1])
    assert entries == [(1, 0.5, 3), (0, 0.0, 4), (2, 2.0, 1)]
    assert ref.trec_ideal_gains(entries) == [2.0]
    # a level listed twice: the first listed holds the count, the first sorted gives the DCG gain
    entries = ref.trec_gain_entries([(1, 5.0), (1, 3.0)], [2, 2])
    assert entries == [(0, 0.0, 2), (1, 3.0, 0), (1, 5.0, 2)]
    assert ref.trec_level_gain(entries, 1) == 3.0 and ref.trec_ideal_gains(entries) == [5.0, 5.0]
    # -1 / -2 keep gain 0 unless listed; an unlisted level keeps gain = level
    entries = ref.trec_gain_entries([(-1, 2.0)], [1, 0, 1])
    assert ref.trec_level_gain(entries, -1) == 2.0 and ref.trec_level_gain(entries, -2) == 0.0
    assert ref.trec_level_gain(entries, 2) == 2.0 and ref.trec_ideal_gains(entries) == [2.0]
    # the last sorted entry (count 0) has gain <= 0: the ideal is empty at once
    entries = ref.trec_gain_entries([(3, 0.5), (1, 0.3)], [1, 2])
    assert entries[-1] == (0, 0.0, 1) and ref.trec_ideal_gains(entries) == []
    # negative gains are allowed; the walk stops at the first level with gain <= 0
    entries = ref.trec_gain_entries([(2, -1.0)], [1, 1, 1, 1])
    assert ref.trec_ideal_gains(entries) == [3.0, 1.0]


def test_topic_ndcg_by_hand():
    # levels of the ranked documents: 1 (unjudged -1), 2, -2; judged: 2, 1, 0, -1
    pairs = [(-1, 1.0), (0, 1.0)]
    got = ref.trec_gain_topic_ndcg(pairs, [3.0, 2.0, 1.0], [0, 1, 2], [-1, 2, -2], [2, 1, 0, -1], [None, 1])
    d = 1 / math.log2(3)
    idcg = 2.0 + 1.0 * d + 1.0 * 0.5
    assert got == [(1.0 + 2.0 * d) / idcg, 1.0 / idcg]
    assert ref.trec_gain_topic_ndcg([(1, 0.5)], [1.0], [0], [1], [1, 0], [None]) == [0.0]   # walk stops at 0


# ----------------------------------------------------------------------------- golden trec_eval numbers

HAND_QRELS = """301 0 d1 2
301 0 d2 1
301 0 d3 0
301 0 d4 -1
301 0 d5 3
301 0 d6 1
302 0 a 0
302 0 b 0
302 0 c -2
303 0 x1 1
303 0 x2 4
303 0 x3 2
303 0 x4 0
303 0 x5 -1
303 0 x6 2
304 0 m 1
"""
HAND_RUN = """301 Q0 d1 1 2.0 gold
301 Q0 d4 2 2.0 gold
301 Q0 u1 3 2.0 gold
301 Q0 d3 4 1.0 gold
301 Q0 d6 5 1.0 gold
301 Q0 u2 6 0.5 gold
302 Q0 a 1 1.0 gold
302 Q0 c 2 1.0 gold
302 Q0 z 3 0.0 gold
303 Q0 x3 1 3 gold
303 Q0 u9 2 3 gold
303 Q0 x1 3 2 gold
303 Q0 x5 4 2 gold
303 Q0 x2 5 1 gold
303 Q0 x4 6 0 gold
"""

# trec_eval -c -q -m ndcg.SPEC qrels run (%.17g); topic 304 is missing from the run
GOLDEN_C = {
    '0=1': '301:0.32575778581813591 302:0.38685280723454163 303:0.61224140278355266 304:0 all:0.33121299895905754',
    '1=0.5': '301:0.28516619963651507 302:0 303:0.60089970138785243 304:0 all:0.22151647525609186',
    '1=3,2=9,4=4.5': '301:0.42324488922789533 302:0 303:0.66040641185756654 304:0 all:0.27091282527136545',
    '-1=1': '301:0.53670955967935496 302:0 303:0.68868026943296712 304:1 all:0.55634745727808055',
    '-2=2': '301:0.51853969455369464 302:0 303:0.74382681520157989 304:0 all:0.31559162743881863',
    '-2=2,-1=-0.5': '301:0.3879477092429941 302:0 303:0.69668999386634323 304:-0.5 all:0.14615942577733432',
    '0=-1': '301:0.20102388076439259 302:0 303:0.54118208174145643 304:0 all:0.18555149062646226',
    '1=5,1=3': '301:0.21795637729074524 302:0 303:0.51565303237954607 304:0 all:0.18340235241757283',
    '1=3,1=5': '301:0.3159614955354561 302:0 303:0.6241104003454383 304:0 all:0.23501797397022361',
    '2=0.3,1=0.6': '301:0.13613531161467862 302:0 303:0.52645429094555052 304:0 all:0.16564740064005729',
    '1=3e9': '301:303161019.98546076 302:0 303:206333226.7825188 304:0 all:127373561.69199489',
    '1=2147483648,2=1': '301:0.26406812256978418 302:0 303:0.43067655856684695 304:0 all:0.17368617028415778',
    '4=-2,1=0.5': '301:0.28516619963651507 302:0 303:0.44196651063930986 304:0 all:0.18178317756895623',
    '0=0.5,1=0.25': '301:0.27754010633235798 302:0.38685280723454163 303:0.5840637232229472 304:0 all:0.31211415919746166',
    '5=-1,1=2': '301:0.30398309362427017 302:0 303:0.6189292076822579 304:0 all:0.23072807532663203',
    '3=0.5': '301:0.45694942738380429 302:0 303:0.59440662676249389 304:0 all:0.26283901353657457',
    '1=0': '301:0.23463936301137822 302:0 303:0.56651083035185112 304:0 all:0.20028754834080734',
    '0=1,1=0,2=0': '301:0.10654373218155079 302:0.38685280723454163 303:0.41106613948917781 304:0 all:0.22611566972631755',
}
# trec_eval -c -q -M 3 -m ndcg.SPEC qrels run (%.17g)
GOLDEN_CM3 = {
    '0=1': '301:0.17923109911511356 302:0.38685280723454163 303:0.28251026127169221 304:0 all:0.21214854190533686',
    '-1=2': '301:0.57775236653556639 302:0 303:0.48738766221911856 304:2 all:0.76628500718867121',
    '1=0.5': '301:0.23463936301137822 302:0 303:0.31939394323979897 304:0 all:0.1385083265627943',
}
# trec_eval -q -m ndcg.SPEC qrels.rel_level results.test (trec_eval's own test files; 4 decimals)
REL_LEVEL = {
    '0=1': '301:0.1991 302:0.3957 303:0.2970 all:0.2973',
    '-2=1': '301:0.1396 302:0.6617 303:1.8346 all:0.8786',
    '1=0.5': '301:0.3442 302:0.6617 303:0.3669 all:0.4576',
    '2=0.5,1=0.7': '301:0.5976 302:0.6617 303:0.0000 all:0.4198',
    '4=-1,3=2': '301:0.1490 302:0.6617 303:0.3669 all:0.3925',
    '-1=0.5,0=0.25': '301:0.3053 302:0.7046 303:0.9435 all:0.6511',
}
# Robust 2003 (trectools-robust03): trec_eval -q -m ndcg.SPEC qrels run (4 decimals)
ROBUST_PER_TOPIC = {
    ('input.MU03rob01', '0=1'): (
        '303:0.3214 307:0.2973 310:0.3829 314:0.3427 320:0.4801 322:0.2421 325:0.3162 330:0.4921 336:0.2552 '
        '341:0.3900 344:0.2330 345:0.4761 346:0.3551 347:0.4859 350:0.3337 353:0.3328 354:0.3278 355:0.2960 '
        '356:0.1904 362:0.2781 363:0.4159 367:0.2225 372:0.3584 374:0.4853 375:0.3844 378:0.2729 379:0.2868 '
        '383:0.3726 389:0.2628 393:0.1935 394:0.3058 397:0.3065 399:0.3484 401:0.2553 404:0.4501 408:0.4014 '
        '409:0.3556 414:0.3937 416:0.2381 419:0.4037 426:0.2956 427:0.2354 433:0.3160 435:0.3706 436:0.2625 '
        '439:0.3606 442:0.1575 443:0.2495 445:0.2120 448:0.3032 601:0.5644 602:0.7599 603:0.6329 604:0.6502 '
        '605:0.4653 606:0.5732 607:0.5818 608:0.5139 609:0.5628 610:0.4573 611:0.8030 612:0.7770 613:0.7385 '
        '614:0.5746 615:0.5798 616:0.5142 617:0.3896 618:0.8292 619:0.6754 620:0.7160 621:0.7070 622:0.3231 '
        '623:0.6136 624:0.6139 625:0.3228 626:0.3636 627:0.4160 628:0.8067 629:0.8010 630:0.5802 631:0.8005 '
        '632:0.5217 633:0.5119 634:0.5897 635:0.5780 636:0.4149 637:0.6273 638:0.4627 639:0.4464 640:0.4335 '
        '641:0.8060 642:0.7004 643:0.6505 644:0.6091 645:0.6127 646:0.5379 647:0.5163 648:0.3333 649:0.5399 '
        '650:0.4654 all:0.4537'
    ),
    ('input.MU03rob01', '1=0.5'): (
        '303:0.0000 307:0.0000 310:0.0000 314:0.0000 320:0.0000 322:0.0000 325:0.0000 330:0.0000 336:0.0000 '
        '341:0.0000 344:0.0000 345:0.0000 346:0.0000 347:0.0000 350:0.0000 353:0.0000 354:0.0000 355:0.0000 '
        '356:0.0000 362:0.0000 363:0.0000 367:0.0000 372:0.0000 374:0.0000 375:0.0000 378:0.0000 379:0.0000 '
        '383:0.0000 389:0.0000 393:0.0000 394:0.0000 397:0.0000 399:0.0000 401:0.0000 404:0.0000 408:0.0000 '
        '409:0.0000 414:0.0000 416:0.0000 419:0.0000 426:0.0000 427:0.0000 433:0.0000 435:0.0000 436:0.0000 '
        '439:0.0000 442:0.0000 443:0.0000 445:0.0000 448:0.0000 601:0.5212 602:1.7876 603:0.4542 604:1.0003 '
        '605:0.0000 606:0.7173 607:0.0000 608:0.5808 609:0.6286 610:0.0000 611:0.8108 612:0.8475 613:0.8346 '
        '614:1.2174 615:0.7492 616:0.8841 617:0.3440 618:1.7376 619:0.9002 620:0.5507 621:1.1195 622:0.4334 '
        '623:1.1015 624:0.6762 625:0.2302 626:0.1856 627:0.0000 628:0.7362 629:0.8527 630:1.0973 631:1.0402 '
        '632:1.0346 633:1.0357 634:0.8520 635:0.0000 636:0.9451 637:0.7679 638:0.4256 639:0.0000 640:0.5707 '
        '641:0.9076 642:0.4468 643:0.7651 644:0.8592 645:1.0949 646:0.9405 647:0.6791 648:0.3256 649:0.0000 '
        '650:0.4779 all:0.3417'
    ),
    ('input.MU03rob01', '-1=1,-2=2'): (
        '303:20.5618 307:2.4736 310:11.8444 314:6.1754 320:20.2648 322:8.5075 325:10.5357 330:3.7895 336:15.7051 '
        '341:4.4492 344:30.3877 345:6.8478 346:3.3027 347:2.4008 350:4.8363 353:3.2300 354:1.1380 355:6.5597 '
        '356:13.9519 362:7.1744 363:9.2410 367:2.6472 372:5.7661 374:2.1707 375:4.5378 378:3.6129 379:9.2966 '
        '383:2.2628 389:1.5511 393:4.6718 394:7.8118 397:7.6227 399:3.1552 401:1.1175 404:2.2911 408:3.2285 '
        '409:8.8928 414:6.2700 416:8.2977 419:8.1978 426:1.6882 427:6.8562 433:9.2983 435:2.4766 436:2.2366 '
        '439:1.4215 442:3.9655 443:3.3544 445:6.2398 448:4.0172 601:12.5189 602:3.5760 603:6.1819 604:10.6446 '
        '605:3.0622 606:7.1181 607:13.5742 608:4.8064 609:3.7848 610:16.9657 611:3.9070 612:5.8182 613:3.4590 '
        '614:5.8670 615:9.7320 616:4.6993 617:3.3702 618:9.1953 619:6.5734 620:8.8371 621:4.4052 622:3.5006 '
        '623:5.2354 624:8.4839 625:5.0561 626:6.3419 627:4.6219 628:6.1380 629:7.7662 630:11.0182 631:1.9547 '
        '632:3.3686 633:5.4048 634:6.1769 635:9.6324 636:6.9853 637:6.3015 638:3.7866 639:5.7955 640:4.5600 '
        '641:3.8351 642:3.7911 643:6.0024 644:3.2089 645:4.6078 646:9.8178 647:4.0035 648:2.3071 649:8.0419 '
        '650:6.1114 all:6.4029'
    ),
    ('input.MU03rob01', '0=-1,2=0.3,1=0.6'): (
        '303:-10.4341 307:-1.2865 310:-18.1170 314:-6.4825 320:-27.9910 322:-6.1108 325:-7.8534 330:-7.2881 336:-13.8824 '
        '341:-3.8064 344:-18.6191 345:-7.4997 346:-3.7187 347:-2.9189 350:-4.5282 353:-2.7332 354:-1.5045 355:-5.7301 '
        '356:-8.9636 362:-6.6268 363:-17.7673 367:-1.5250 372:-6.0866 374:-1.6619 375:-3.3234 378:-3.5963 379:-17.8854 '
        '383:-3.3877 389:-3.4189 393:-4.6400 394:-19.0150 397:-10.8349 399:-4.2333 401:-2.4173 404:-3.1318 408:-2.7591 '
        '409:-12.0857 414:-7.8515 416:-3.4745 419:-19.4852 426:-2.9443 427:-3.9834 433:-22.7548 435:-4.1850 436:-2.4943 '
        '439:-2.8905 442:-3.6188 443:-3.7024 445:-3.0081 448:-9.8786 601:-42.6514 602:-3.7214 603:-20.4208 604:-28.0326 '
        '605:-7.0465 606:-21.3946 607:-19.2518 608:-14.1615 609:-14.8999 610:-33.4616 611:-7.1082 612:-20.6153 613:-9.3586 '
        '614:-9.8399 615:-19.3919 616:-7.9106 617:-6.0166 618:-6.2639 619:-13.0030 620:-28.9563 621:-5.7128 622:-7.2560 '
        '623:-7.9695 624:-11.4040 625:-12.5489 626:-31.0194 627:-15.5505 628:-11.0537 629:-12.2325 630:-61.7434 631:-4.5973 '
        '632:-5.5482 633:-6.0208 634:-45.8898 635:-13.3170 636:-21.9192 637:-13.3997 638:-12.6041 639:-11.5116 640:-6.4387 '
        '641:-7.3463 642:-10.5316 643:-9.5007 644:-7.6524 645:-13.0862 646:-23.0045 647:-12.5194 648:-10.3335 649:-5.1956 '
        '650:-8.3782 all:-11.3293'
    ),
    ('input.NLPR03vb10', '0=1'): (
        '303:0.0461 307:0.0310 310:0.0261 314:0.0274 320:0.0382 322:0.0217 325:0.0230 330:0.0282 336:0.0262 '
        '341:0.0333 344:0.0307 345:0.0415 346:0.0261 347:0.0347 350:0.0301 353:0.0280 354:0.0186 355:0.0272 '
        '356:0.0245 362:0.0267 363:0.0273 367:0.0242 372:0.0295 374:0.0339 375:0.0332 378:0.0210 379:0.0193 '
        '383:0.0247 389:0.0156 393:0.0186 394:0.0133 397:0.0225 399:0.0265 401:0.0148 404:0.0260 408:0.0304 '
        '409:0.0268 414:0.0297 416:0.0311 419:0.0242 426:0.0200 427:0.0261 433:0.0195 435:0.0224 436:0.0213 '
        '439:0.0207 442:0.0163 443:0.0190 445:0.0279 448:0.0153 601:0.0455 602:0.0532 603:0.0545 604:0.0809 '
        '605:0.0279 606:0.0548 607:0.0434 608:0.0327 609:0.0496 610:0.0305 611:0.0667 612:0.0588 613:0.0664 '
        '614:0.0530 615:0.0424 616:0.0449 617:0.0287 618:0.0952 619:0.0830 620:0.0549 621:0.0824 622:0.0273 '
        '623:0.0464 624:0.0568 625:0.0284 626:0.0256 627:0.0225 628:0.0596 629:0.0762 630:0.0425 631:0.0505 '
        '632:0.0370 633:0.0431 634:0.0605 635:0.0420 636:0.0269 637:0.0629 638:0.0298 639:0.0288 640:0.0474 '
        '641:0.0802 642:0.0657 643:0.0598 644:0.0448 645:0.0581 646:0.0402 647:0.0375 648:0.0268 649:0.0513 '
        '650:0.0401 all:0.0376'
    ),
    ('input.NLPR03vb10', '1=0.5'): (
        '303:0.0000 307:0.0000 310:0.0000 314:0.0000 320:0.0000 322:0.0000 325:0.0000 330:0.0000 336:0.0000 '
        '341:0.0000 344:0.0000 345:0.0000 346:0.0000 347:0.0000 350:0.0000 353:0.0000 354:0.0000 355:0.0000 '
        '356:0.0000 362:0.0000 363:0.0000 367:0.0000 372:0.0000 374:0.0000 375:0.0000 378:0.0000 379:0.0000 '
        '383:0.0000 389:0.0000 393:0.0000 394:0.0000 397:0.0000 399:0.0000 401:0.0000 404:0.0000 408:0.0000 '
        '409:0.0000 414:0.0000 416:0.0000 419:0.0000 426:0.0000 427:0.0000 433:0.0000 435:0.0000 436:0.0000 '
        '439:0.0000 442:0.0000 443:0.0000 445:0.0000 448:0.0000 601:0.7099 602:0.1592 603:0.2495 604:0.9755 '
        '605:0.0000 606:0.9923 607:0.0000 608:0.2067 609:0.5333 610:0.0000 611:0.1474 612:0.2604 613:0.2442 '
        '614:0.8264 615:0.0660 616:0.5809 617:0.0000 618:0.4277 619:0.8253 620:0.3787 621:0.5345 622:0.3404 '
        '623:0.4726 624:0.0610 625:0.1095 626:0.0000 627:0.0000 628:0.0595 629:0.0491 630:1.0164 631:0.2440 '
        '632:0.4759 633:0.6965 634:0.6705 635:0.0000 636:0.4996 637:0.6192 638:0.1389 639:0.0000 640:0.1513 '
        '641:0.3077 642:0.0874 643:0.4255 644:0.2850 645:0.5529 646:0.0308 647:0.3125 648:0.2293 649:0.0000 '
        '650:0.0000 all:0.1595'
    ),
    ('input.NLPR03vb10', '-1=1,-2=2'): (
        '303:0.2837 307:0.0571 310:0.3261 314:0.1646 320:0.4329 322:0.1811 325:0.2990 330:0.1274 336:0.6489 '
        '341:0.1774 344:0.1461 345:0.0467 346:0.0178 347:0.0460 350:0.1381 353:0.0646 354:0.0695 355:0.1801 '
        '356:0.0000 362:0.2006 363:0.0705 367:0.1232 372:0.1464 374:0.0596 375:0.1288 378:0.0797 379:0.2131 '
        '383:0.0114 389:0.0552 393:0.2313 394:0.3551 397:0.1932 399:0.1086 401:0.0204 404:0.0372 408:0.0691 '
        '409:0.1722 414:0.1345 416:0.1436 419:0.2343 426:0.0915 427:0.2947 433:0.3341 435:0.0258 436:0.0864 '
        '439:0.0000 442:0.1299 443:0.0676 445:0.0481 448:0.0777 601:0.5745 602:0.0775 603:0.2049 604:0.8697 '
        '605:0.0546 606:0.7008 607:0.3121 608:0.1059 609:0.3832 610:0.0875 611:0.1304 612:0.3034 613:0.2518 '
        '614:0.4707 615:0.0641 616:0.3695 617:0.0000 618:0.1792 619:0.6391 620:0.3841 621:0.3658 622:0.1408 '
        '623:0.3193 624:0.0755 625:0.1067 626:0.0000 627:0.0000 628:0.0622 629:0.0641 630:0.8660 631:0.1710 '
        '632:0.2528 633:0.3246 634:0.6705 635:0.4879 636:0.4580 637:0.4221 638:0.0790 639:0.2910 640:0.1474 '
        '641:0.2450 642:0.0798 643:0.3256 644:0.2421 645:0.4264 646:0.0444 647:0.2342 648:0.1998 649:0.3363 '
        '650:0.0000 all:0.2095'
    ),
    ('input.NLPR03vb10', '0=-1,2=0.3,1=0.6'): (
        '303:-0.9101 307:-0.0574 310:-0.6034 314:-0.2014 320:-1.1370 322:-0.3599 325:-0.3333 330:-0.1989 336:0.2435 '
        '341:0.0415 344:-2.1788 345:-0.5822 346:-0.3195 347:-0.1441 350:-0.1066 353:-0.1410 354:0.0469 355:-0.1503 '
        '356:-1.1933 362:-0.1594 363:-1.0521 367:0.1017 372:-0.2048 374:-0.0554 375:-0.0805 378:-0.1683 379:-0.6720 '
        '383:-0.2443 389:-0.0847 393:0.1559 394:-0.4439 397:-0.3704 399:-0.0669 401:-0.1126 404:-0.1812 408:-0.1366 '
        '409:-0.5524 414:-0.3359 416:-0.2779 419:-0.6154 426:0.0282 427:0.1986 433:-0.5232 435:-0.2542 436:-0.0050 '
        '439:-0.2031 442:-0.0316 443:-0.1763 445:-0.3781 448:-0.4661 601:-1.4661 602:-0.1773 603:-1.0822 604:-0.0915 '
        '605:-0.3109 606:0.1323 607:-0.7381 608:-0.6747 609:-0.1358 610:-2.0582 611:-0.2945 612:-0.2333 613:0.1211 '
        '614:0.2826 615:-1.3333 616:0.2958 617:-0.4929 618:-0.4114 619:0.3537 620:-0.7189 621:0.2104 622:-0.2923 '
        '623:0.2691 624:-0.9472 625:-0.7033 626:-2.2525 627:-0.8649 628:-0.7304 629:-1.1107 630:-1.2594 631:0.1377 '
        '632:0.2725 633:0.3728 634:-0.2352 635:0.1895 636:0.1446 637:-0.1731 638:-0.6243 639:-0.0162 640:-0.2926 '
        '641:-0.1050 642:-0.8315 643:0.0594 644:0.1627 645:0.0076 646:-1.7154 647:-0.2313 648:-0.0871 649:0.1774 '
        '650:-0.7842 all:-0.3594'
    ),
}
# trec_eval -m ndcg.SPEC qrels run, the "all" line (%.17g), every Robust 2003 run
ROBUST_MEANS = {
    ('input.InexpC2', '0=1'): 0.4752049838465483,
    ('input.MU03rob01', '0=1'): 0.45370129522602093,
    ('input.NLPR03vb10', '0=1'): 0.037581135215774698,
    ('input.SABIR03BASE', '0=1'): 0.47104425407925726,
    ('input.Sel50', '0=1'): 0.45592047362520843,
    ('input.THUIRr0301', '0=1'): 0.4931444227762069,
    ('input.UAmsT03RDesc', '0=1'): 0.4457139201101093,
    ('input.UIUC03Rd1', '0=1'): 0.47304484924015172,
    ('input.VTcdhgp1', '0=1'): 0.46578887635768218,
    ('input.aplrob03a', '0=1'): 0.48977174976349064,
    ('input.fub03IeOLKe3', '0=1'): 0.49375160270292168,
    ('input.humR03dc', '0=1'): 0.15662121396001366,
    ('input.oce03noXbmD', '0=1'): 0.4344459561693475,
    ('input.pircRBa1', '0=1'): 0.4892772655448131,
    ('input.rutcor03100', '0=1'): 0.31944435658088877,
    ('input.uic0301', '0=1'): 0.45075795935286822,
    ('input.uwmtCR0', '0=1'): 0.49223858389855485,
    ('input.InexpC2', '1=0.5'): 0.37456370621276763,
    ('input.MU03rob01', '1=0.5'): 0.34167266968067672,
    ('input.NLPR03vb10', '1=0.5'): 0.15953288949542366,
    ('input.SABIR03BASE', '1=0.5'): 0.36271236367546034,
    ('input.Sel50', '1=0.5'): 0.36099185253071581,
    ('input.THUIRr0301', '1=0.5'): 0.39648778758002301,
    ('input.UAmsT03RDesc', '1=0.5'): 0.34018167451428744,
    ('input.UIUC03Rd1', '1=0.5'): 0.3857024694169624,
    ('input.VTcdhgp1', '1=0.5'): 0.37382180698136808,
    ('input.aplrob03a', '1=0.5'): 0.39654634773977848,
    ('input.fub03IeOLKe3', '1=0.5'): 0.37467066941221944,
    ('input.humR03dc', '1=0.5'): 0.25699023848032287,
    ('input.oce03noXbmD', '1=0.5'): 0.34792440067394004,
    ('input.pircRBa1', '1=0.5'): 0.4116553775616027,
    ('input.rutcor03100', '1=0.5'): 0.20077200513879892,
    ('input.uic0301', '1=0.5'): 0.34809642629458876,
    ('input.uwmtCR0', '1=0.5'): 0.39789849765823498,
}


def _golden(text):
    return {t: float(v) for t, v in (item.split(":") for item in text.split())}


def _hand_files(tmp_path):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(HAND_QRELS)
    r.write_text(HAND_RUN)
    return q, r


def _close(got, want):
    """Equal to trec_eval up to the rounding of the last bits (the kernels multiply
    by 1/log2(r+1) where trec_eval divides by log2(r+1))."""
    return abs(got - want) <= 4e-16 * max(1.0, abs(want)) * 8


@pytest.mark.parametrize("spec", sorted(GOLDEN_C))
def test_golden_trec_eval_hand_topics_api(tmp_path, spec):
    q, r = _hand_files(tmp_path)
    a = readers.align_run(r, q, missing="zero")
    want = _golden(GOLDEN_C[spec])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecGainQuirkWarning)
        per = aligned_ndcg(a, convention="trec_eval", gains=spec)
        mean = aligned_mean_ndcg(a, convention="trec_eval", gains=spec)
    got = dict(zip(a.qids.tolist(), per.tolist()), all=mean)
    assert set(got) == set(want)
    for t in want:
        assert _close(got[t], want[t]), (spec, t, got[t], want[t])


@pytest.mark.parametrize("spec", sorted(GOLDEN_CM3))
def test_golden_trec_eval_max_docs(tmp_path, spec):
    q, r = _hand_files(tmp_path)
    a = readers.align_run(r, q, missing="zero", max_docs=3)
    want = _golden(GOLDEN_CM3[spec])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecGainQuirkWarning)
        got = dict(zip(a.qids.tolist(), aligned_ndcg(a, gains=spec).tolist()), all=aligned_mean_ndcg(a, gains=spec))
    assert all(_close(got[t], want[t]) for t in want), (got, want)


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def trec_lines(out):
    """{topic: printed value} of the ndcg_* lines of --format trec output."""
    got = {}
    for line in out.splitlines():
        m, t, v = (p.strip() for p in line.split("\t"))
        if m.startswith("ndcg"):
            got[t] = v
    return got


def test_golden_trec_eval_hand_topics_cli(tmp_path, capsys):
    """fastndcg eval -c --gain SPEC --format trec, in memory and --stream: trec_eval's
    4 decimals and measure names for every spec (main before this change: 3 of 18)."""
    q, r = _hand_files(tmp_path)
    wrong = []
    for spec, text in GOLDEN_C.items():
        want = {t: f"{v:6.4f}" for t, v in _golden(text).items()}
        code, out, err = run_cli(capsys, "eval", q, r, "-c", f"--gain={spec}", "--format", "trec", "--per-query")
        if code != EXIT_OK or trec_lines(out) != want or f"ndcg_{spec}" not in out:
            wrong.append((spec, code, err[-200:]))
        code2, out2, err2 = run_cli(capsys, "eval", q, r, "-c", f"--gain={spec}", "--format", "trec",
                                    "--per-query", "--stream")
        assert (code2, out2, err2) == (code, out, err)
    assert wrong == []


def test_golden_trec_eval_rel_level(shared_data, capsys):
    """trec_eval's own graded qrels (judgments -1..4) with custom gains, CLI and API."""
    base = shared_data / "trec_eval-test"
    a = readers.align_run(base / "results.test", base / "qrels.rel_level")
    for spec, text in REL_LEVEL.items():
        want = {t: v for t, v in (item.split(":") for item in text.split())}
        code, out, err = run_cli(capsys, "eval", base / "qrels.rel_level", base / "results.test", "--gain", spec,
                                 "--format", "trec", "--per-query")
        assert code == EXIT_OK, err
        assert trec_lines(out) == want, spec
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TrecGainQuirkWarning)
            got = dict(zip(a.qids.tolist(), aligned_ndcg(a, gains=spec).tolist()), all=aligned_mean_ndcg(a, gains=spec))
        assert {t: f"{v:6.4f}" for t, v in got.items()} == want, spec


def test_trec_eval_meas_params_through_gains(shared_data):
    """out.test.meas_params (-mndcg.1=3,2=9,4=4.5) through aligned_ndcg(gains=)."""
    base = shared_data / "trec_eval-test"
    want = {}
    for line in open(base / "out.test.meas_params"):
        m, t, v = (p.strip() for p in line.split("\t"))
        if m == "ndcg_1=3,2=9,4=4.5":
            want[t] = v
    a = readers.align_run(base / "results.test", base / "qrels.test")
    got = dict(zip(a.qids.tolist(), aligned_ndcg(a, gains="1=3,2=9,4=4.5").tolist()),
               all=aligned_mean_ndcg(a, gains="1=3,2=9,4=4.5"))
    assert len(want) == 4 and {t: f"{v:.4f}" for t, v in got.items()} == want


def test_golden_trec_eval_robust03(shared_data):
    """Real runs (tie-heavy MU03rob01, huge scores NLPR03vb10): every topic at
    trec_eval's 4 decimals; the mean of every run to the last bits."""
    base = shared_data / "trectools-robust03"
    qrels = readers.read_qrels(base / "robust03_qrels.txt")
    aligned = {run: readers.align_run(base / "runs" / f"{run}.gz", qrels) for run, _ in ROBUST_MEANS}
    n = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecGainQuirkWarning)
        for (run, spec), text in ROBUST_PER_TOPIC.items():
            a = aligned[run]
            want = dict(item.split(":") for item in text.split())
            got = dict(zip(a.qids.tolist(), aligned_ndcg(a, gains=spec).tolist()), all=aligned_mean_ndcg(a, gains=spec))
            assert {t: f"{v:6.4f}" for t, v in got.items()} == want, (run, spec)
            n += len(want)
        for (run, spec), want in ROBUST_MEANS.items():
            got = aligned_mean_ndcg(aligned[run], gains=spec)
            assert abs(got - want) <= 1e-15, (run, spec, got, want)
    assert n == 8 * 101 and len(ROBUST_MEANS) == 34


# ----------------------------------------------------------------------------- generated data

SPECS = ["0=1", "1=0.5", "1=3,2=9,4=4.5", "0=-1", "1=-2,2=5", "-1=1", "-2=2", "-1=-1,-2=0.5", "1=5,1=3",
         "1=3,1=5", "2=0.3,1=0.6", "1=0.9,2=0.2,3=0.5", "1=1e10,2=3e9", "2=2147483648,1=0.5", "1=3e9",
         "3=-1e10", "0=0.5,1=0.25", "5=-1", "5=0.5,1=0.2", "0=1,1=0,2=0", "1=2.5,2=2", "0=-0.5,1=0.1",
         "2=1.5,1=1", "1=0", "1=-1", "0=3,1=2,2=1", "6=0.5,4=0.7", "-3=5", "1=2147483647.5,2=0.25",
         "1=-2147483648.5,2=1", "0=1,-1=1,-2=1", "1=.5,2=+3.", "+1=3,-0=2"]


def random_specs(seed, n):
    rng = random.Random(seed)
    pools = [lambda: str(rng.randint(-3, 12)), lambda: repr(round(rng.uniform(-2, 5), rng.choice([0, 1, 2]))),
             lambda: rng.choice(["0.5", "0.3", "0.9", "1.1", "0", "-0.5", "2147483648", "3e9", "-3e9", "0.25"])]
    out = []
    for _ in range(n):
        pool = rng.choice(pools)
        out.append(",".join(f"{rng.randint(-2, 6)}={pool()}" for _ in range(rng.randint(1, 5))))
    return out


def make_trec(tmp_path, seed, n_topics=40, drop=0):
    """Tie-heavy qrels + run files: graded (0..4, 6) and negative (-1, -2, -5)
    judgments, unjudged retrieved documents, topics with no relevant document,
    docnos whose byte order matters; ``drop`` judged topics missing from the run.
    Returns the paths and the expected trec_eval inputs built here, without
    fastndcg.io: per topic (bytewise order) the run's (score, docno byte
    rank, level) in file order and the judgments."""
    rng = random.Random(seed)
    topics = list(dict.fromkeys(f"{rng.randint(1, 400)}{rng.choice(['', 'a', '_x', 'B'])}" for _ in range(n_topics)))
    qrels, run = {}, {}
    for t in topics:
        pool = list(dict.fromkeys(f"d{rng.randint(0, 300)}{rng.choice(['', 'b', '-0', 'Z'])}"
                                  for _ in range(rng.randint(1, 30))))
        kind = rng.random()
        choices = ([0, 0, 0, -1, -2] if kind < 0.15 else [0, 1, -1] if kind < 0.3 else
                   [0, 0, 1, 1, 2, 3, 4, -1, -2, -5, 2, 6])
        judged = {d: rng.choice(choices) for d in pool}
        if max(judged.values()) < 0:
            judged[pool[0]] = 0
        qrels[t] = judged
        n_values = rng.choice([1, 2, 3, 5])
        docs = list(dict.fromkeys(rng.sample(pool, rng.randint(0, len(pool))) +
                                  [f"u{rng.randint(0, 200)}{rng.choice(['', 'c'])}" for _ in range(rng.randint(0, 20))]))
        run[t] = [(d, rng.randint(0, n_values - 1) / 2.0) for d in (docs or ["u0"])]
    in_run = topics[drop:]
    q, r = tmp_path / f"qrels{seed}", tmp_path / f"run{seed}"
    q.write_text("".join(f"{t} 0 {d} {v}\n" for t in topics for d, v in qrels[t].items()))
    lines = [f"{t} Q0 {d} {i} {s} gen\n" for t in in_run for i, (d, s) in enumerate(run[t])]
    lines.append("nojudg Q0 x 0 1.0 gen\n")              # a run topic without judgments: ignored
    r.write_text("".join(lines))
    expected = {}
    for t in sorted(topics, key=str.encode):
        docs = run[t] if t in in_run else []
        byte_rank = {d: i for i, d in enumerate(sorted((d for d, _ in docs), key=str.encode))}
        levels = [qrels[t][d] if qrels[t].get(d, -1) >= 0 else (-2 if d in qrels[t] else -1) for d, _ in docs]
        expected[t] = ([s for _, s in docs], [byte_rank[d] for d, _ in docs], levels, list(qrels[t].values()))
    return q, r, expected, set(in_run)


def reference_values(expected, spec, k, preset="trec_eval", topics=None):
    topics = [t for t in expected if topics is None or t in topics]
    scores, keys, levels, judged, sizes, jsizes = [], [], [], [], [], []
    for t in topics:
        s, key, lev, jud = expected[t]
        scores += s
        keys += key
        levels += lev
        judged += jud
        sizes.append(len(s))
        jsizes.append(len(jud))
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    joff = np.concatenate([[0], np.cumsum(jsizes)]).astype(np.int64)
    return fastndcg.reference.trec_gain_ndcg(parse_gains(spec).pairs, scores, levels, off, keys, judged, joff, k,
                              "float32" if preset == "pytrec_eval" else "native",
                              missing_as_unjudged=preset == "trec_eval")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_equals_reference_generated(tmp_path, seed):
    """Every spec (fixed quirky ones and random ones) on tie-heavy generated
    topics, with judged topics missing from the run (-c), several cutoffs:
    per topic equal to the reference (bit for bit when no gain is negative)."""
    q, r, expected, _ = make_trec(tmp_path, seed, drop=3)
    a = readers.align_run(r, q, missing="zero")
    assert a.qids.tolist() == list(expected)
    ks = [None, 1, 3, 10]
    for preset in ("trec_eval", "pytrec_eval"):
        for spec in SPECS + random_specs(seed, 15):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TrecGainQuirkWarning)
                got = aligned_ndcg(a, ks, convention=preset, gains=spec, n_threads=1)
                mean = aligned_mean_ndcg(a, ks, convention=preset, gains=spec, n_threads=1)
            want = reference_values(expected, spec, ks, preset)
            if min(g for _, g in parse_gains(spec).pairs) >= 0:
                assert np.array_equal(got, want), (preset, spec)
            else:       # DCG(g+) - DCG(g-): the same up to rounding
                np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13, err_msg=f"{preset} {spec}")
            np.testing.assert_allclose(mean, want.mean(axis=0), rtol=1e-13, atol=1e-13)


class _PytrecGains(pytrec_eval.RelevanceEvaluator):
    """pytrec_eval's evaluator given trec_eval measure strings as they are
    (its Python wrapper rewrites "ndcg.1=3" to "ndcg.1", which trec_eval rejects)."""

    def _combine_measures(self, measures):
        return set(measures)


def _pytrec(qrels_path, run_path, spec):
    qrels, run = {}, {}
    for line in open(qrels_path):
        t, _, d, v = line.split()
        qrels.setdefault(t, {})[d] = int(v)
    for line in open(run_path):
        t, _, d, _, s, _ = line.split()
        run.setdefault(t, {})[d] = float(s)
    return _PytrecGains(qrels, {f"ndcg.{spec}"}).evaluate(run)


@pytest.mark.parametrize("seed", [3, 4])
def test_pytrec_eval_generated(tmp_path, seed):
    """pytrec_eval's ndcg.L=G (trec_eval 9.0.x) equals the pytrec_eval preset
    with the same gains on every topic, to 1e-12 (relative above 1: huge gains
    give huge values)."""
    q, r, expected, _ = make_trec(tmp_path, seed)
    a = readers.align_run(r, q, missing="skip", float32_scores=True)
    n = 0
    for spec in SPECS + random_specs(seed, 30):
        want = _pytrec(q, r, spec)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TrecGainQuirkWarning)
            got = dict(zip(a.qids.tolist(), aligned_ndcg(a, convention="pytrec_eval", gains=spec, n_threads=1).tolist()))
        assert set(got) == set(want)
        for t, v in got.items():
            w = want[t]["ndcg"]
            assert abs(v - w) <= 1e-12 * max(1.0, abs(w)), (spec, t, v, w)
            n += 1
    assert n > 1000


def test_pytrec_eval_robust03(shared_data):
    base = shared_data / "trectools-robust03"
    qrels = readers.read_qrels(base / "robust03_qrels.txt")
    for name in ("input.MU03rob01", "input.UIUC03Rd1"):
        path = base / "runs" / f"{name}.gz"
        a = readers.align_run(path, qrels, missing="skip", float32_scores=True)
        run = {}
        for block in _files.iter_line_blocks(path):
            for line in bytes(block).decode().splitlines():
                t, _, d, _, s = line.split()[:5]
                run.setdefault(t, {})[d] = float(s)
        judged = qrels.to_dict()
        for spec in ("0=1", "1=0.5", "-1=1,-2=2", "0=-1,2=0.3,1=0.6", "1=5,1=3"):
            want = _PytrecGains(judged, {f"ndcg.{spec}"}).evaluate(run)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TrecGainQuirkWarning)
                got = dict(zip(a.qids.tolist(), aligned_ndcg(a, convention="pytrec_eval", gains=spec).tolist()))
            assert set(got) == set(want)
            assert max(abs(v - want[t]["ndcg"]) for t, v in got.items()) <= 1e-12, (name, spec)


# ----------------------------------------------------------------------------- front-ends


def test_stream_equals_in_memory(tmp_path):
    """evaluate_run in small pieces, with missing topics (-c): per topic and mean
    bit for bit those of AlignedRun.ndcg, and one warning for the whole run."""
    q, r, _, _ = make_trec(tmp_path, 5, drop=2)
    a = readers.align_run(r, q, missing="zero")
    for spec in ("0=1", "-1=1,-2=-1", "1=0.5", "1=5,1=3"):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            res = evaluate_run(q, r, [None, 5], gains=spec, missing="zero", chunk_rows=40, block_size=300,
                               n_threads=1)
        n_warn = sum(issubclass(w.category, TrecGainQuirkWarning) for w in seen)
        with warnings.catch_warnings(record=True) as seen2:
            warnings.simplefilter("always")
            per = aligned_ndcg(a, [None, 5], gains=spec, n_threads=1)
            mean = aligned_mean_ndcg(a, [None, 5], gains=spec, n_threads=1)
        assert res.n_chunks > 3
        assert res.query_ids.tolist() == a.qids.tolist()
        assert np.array_equal(res.ndcg, per) and np.array_equal(res.mean, mean), spec
        assert n_warn == (spec in ("1=0.5", "1=5,1=3"))
        assert len(seen2) == 2 * n_warn                # one per call


def test_align_chunk_and_accumulator(tmp_path):
    q, r, _, _ = make_trec(tmp_path, 6)
    a = readers.align_run(r, q)
    _, chunk = align_chunk(r, q, "trec_eval", gains="-2=1,1=2")
    acc = NDCGAccumulator(10, convention="trec_eval")
    acc.add(chunk)
    assert np.array_equal(acc.result().ndcg, aligned_ndcg(a, 10, gains="-2=1,1=2"))
    with pytest.raises(ValueError, match="gain table"):
        align_chunk(r, q, "standard", gains="1=2")


def test_one_warning_on_stderr(tmp_path, capsys):
    q, r, _, _ = make_trec(tmp_path, 7)
    r2 = tmp_path / "run7b"
    r2.write_text(r.read_text().replace(" gen\n", " other\n"))
    code, out, err = run_cli(capsys, "eval", q, r, r2, "--gain", "2=0.3,1=0.6")
    assert code == EXIT_OK
    assert err.count("fastndcg: warning:") == 1
    assert "(int)(g1 - g2)" in err and "gain <= 0" in err and "--preset standard" in err
    assert "-m ndcg.2=0.3,1=0.6" in err
    code, out, err = run_cli(capsys, "eval", q, r, r2, "--gain", "1=3,2=9,4=4.5")
    assert code == EXIT_OK and "fastndcg: warning" not in err
    code, out, err = run_cli(capsys, "eval", q, r, "--gain", "1=5,1=3")
    assert err.count("fastndcg: warning:") == 1 and "level 1 is listed more than once" in err


def test_python_warning(tmp_path):
    q, r, _, _ = make_trec(tmp_path, 8)
    a = readers.align_run(r, q)
    with pytest.warns(TrecGainQuirkWarning, match=r"replace\(gain=") as rec:
        aligned_ndcg(a, gains="0=0.5,1=0.25")
    assert rec[0].filename == __file__       # attributed to the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrecGainQuirkWarning)
        aligned_ndcg(a, gains="0=1")            # semantics differ from a table, but no ordering quirk


@pytest.mark.parametrize("text", ["1=x", "x=1", "1=3x", "1", "", "1=3,", ",1=3", "1=inf", "1=nan", "1=1e400",
                                  " 1=3", "1=3 ", "1.5=2", "1==2", "0x1=2", "1=0x10"])
def test_malformed_gains_are_errors(text, capsys):
    with pytest.raises(ValueError, match="gains: .*(LEVEL=GAIN|finite)"):
        parse_gains(text)
    with pytest.raises(SystemExit) as exc:         # argparse: usage error
        main(["eval", "q", "r", f"--gain={text}"])
    out, err = capsys.readouterr()
    assert exc.value.code == EXIT_USAGE and "argument --gain:" in err and out == ""
    assert "LEVEL=GAIN" in err or "finite" in err


def test_accepted_gain_forms():
    assert parse_gains("1=3,2=9").pairs == ((1, 3.0), (2, 9.0))
    assert parse_gains("-1=-2.5,+2=.5,1=3.,1=1e2").pairs == ((-1, -2.5), (2, 0.5), (1, 3.0), (1, 100.0))
    assert as_gains({1: 3, 2: 9.5}).text == "1=3,2=9.5"
    assert as_gains([(1, 3), (1, 5)]).pairs == ((1, 3.0), (1, 5.0))
    with pytest.raises(ValueError, match="finite"):
        as_gains({1: math.inf})


def test_negative_first_level_on_command_line(tmp_path, capsys):
    q, r = _hand_files(tmp_path)
    code, out, err = run_cli(capsys, "eval", q, r, "-c", "--gain", "-1=1", "--format", "trec", "--per-query")
    assert code == EXIT_OK, err
    assert trec_lines(out)["304"] == "1.0000" and "ranked as one unjudged document" in err


def test_presets_rules(tmp_path, capsys):
    """The custom_gains field decides: trec_eval / pytrec_eval (and any convention with their
    field, renamed or changed elsewhere) trec_eval's rules; ndcg_cut presets: an error; any other
    convention: the textbook gain table (explicit, with its errors)."""
    trec = fastndcg.get_preset("trec_eval")
    assert gain_rules("trec_eval") == gain_rules("pytrec_eval") == "trec_eval"
    assert gain_rules(trec.replace(name="mine")) == gain_rules(trec.replace(ties="stable")) == "trec_eval"
    assert gain_rules("standard") == gain_rules(trec.replace(custom_gains="table")) == "table"
    for cut in ("trec_eval_cut", "pytrec_eval_cut"):
        with pytest.raises(ValueError, match="ndcg_cut takes no gains"):
            gain_rules(cut)
    q, r = _hand_files(tmp_path)
    code, _, err = run_cli(capsys, "eval", q, r, "-c", "--preset", "trec_eval_cut", "--gain", "1=3")
    assert code == EXIT_USAGE and "ndcg_cut takes no gains" in err
    a = readers.align_run(r, q, missing="zero")
    custom = fastndcg.get_preset("trec_eval").replace(custom_gains="table")
    table = textbook_convention(parse_gains("1=3,0=1"), custom, 4)
    assert table.gain == (1.0, 3.0, 2.0, 3.0, 4.0)
    assert np.array_equal(aligned_ndcg(a, convention=custom, gains="1=3,0=1"), aligned_ndcg(a, convention=table))
    # the textbook rule gives unjudged documents the gain of level 0: not trec_eval's numbers
    assert not np.array_equal(aligned_ndcg(a, convention=custom, gains="0=1"), aligned_ndcg(a, gains="0=1"))
    for bad, what in (("0=-1", "negative gains"), ("-1=2", "levels -1")):
        with pytest.raises(ValueError, match=what):
            aligned_ndcg(a, convention="standard", gains=bad)
        code, _, err = run_cli(capsys, "eval", q, r, "-c", "--preset", "standard", f"--gain={bad}")
        assert code == EXIT_USAGE and what in err


def test_topic_whose_judgments_are_all_negative(tmp_path):
    """trec_eval 10 reuses the previous topic's level counts (all -1) or
    crashes (below -1); fastndcg: no judged level, so no ideal: NDCG 0."""
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text("1 0 a 2\n1 0 b 1\n2 0 a -1\n2 0 b -1\n")
    r.write_text("1 Q0 a 0 2 x\n1 Q0 b 1 1 x\n2 Q0 a 0 3 x\n2 Q0 c 1 1 x\n")
    a = readers.align_run(r, q)
    assert aligned_ndcg(a, gains="-2=1").tolist() == [1.0, 0.0]


def test_resolution_levels_and_ideal(tmp_path):
    """resolve_trec_gains on the hand topics: the documents' gains and the ideal DCGs."""
    q, r = _hand_files(tmp_path)
    a = readers.align_run(r, q, missing="skip")
    assert a.trec_levels().tolist() == [2, -2, -1, 0, 1, -1, 0, -2, -1, 2, -1, 1, -2, 4, 0]
    res = resolve_trec_gains(parse_gains("-1=7,-2=5,0=1,2=0.5"), a.trec_levels(), a.offsets, a.trec_judged(),
                             a.ideal_offsets)
    assert res.doc_gains.tolist() == [0.5, 5, 7, 1, 1, 7, 1, 5, 7, 0.5, 7, 1, 5, 4, 1]
    d = [1 / math.log2(r + 1) for r in range(1, 8)]
    # 301: judged levels 3, 2, 1, 1, 0 (gains 3, 0.5, 1, 1, 1). Entries (-1,7) (-2,5) (0,1) (2,.5) then
    # (1,1) (3,3); glibc's merge sort with (int)(g1 - g2) gives (0,1) (2,.5) (1,1) (3,3) (-2,5) (-1,7):
    # the walk (from the end, skipping -2 and -1: no judged count) is 3, 1, 1, 0.5, 1
    want_301 = 3 * d[0] + 1 * d[1] + 1 * d[2] + 0.5 * d[3] + 1 * d[4]
    assert res.ideal_dcg[0] == pytest.approx(want_301, rel=1e-15)


def test_gain_scorer_negative_gains_and_empty_rules():
    """The DCG(g+) - DCG(g-) split keeps every convention's empty rule."""
    gains = np.array([-1.0, 2.0, 0.5, -0.5])
    offsets = np.array([0, 2, 4, 4])
    scores = np.array([2.0, 1.0, 1.0, 3.0])
    d1, d2 = 1.0, 1 / math.log2(3)
    for empty, value in (("zero", 0.0), ("one", 1.0)):
        conv = fastndcg.Convention(gain="linear", empty=empty)
        s = GainScorer(gains, offsets, None, convention=conv, ideal_dcg=[2.0, 0.0, 0.0])
        got = s.ndcg(scores)
        assert got[0] == pytest.approx((-1 * d1 + 2 * d2) / 2.0) and got[1] == got[2] == value
        assert s.mean(scores) == pytest.approx((got[0] + 2 * value) / 3)
    s = GainScorer(gains, offsets, None, convention=fastndcg.Convention(gain="linear", empty="skip"),
                   ideal_dcg=[2.0, 0.0, 1.0])
    got = s.ndcg(scores)
    assert math.isnan(got[1]) and s.mean(scores) == pytest.approx((got[0] + got[2]) / 2)


def test_the_ideal_of_custom_gains_is_discounted_with_the_conventions_base(tmp_path):
    """trec_eval's gain rules under a jk discount of base 10: the ideal DCG is summed with the
    same discount as the DCG (base included), so a ranking in ideal order scores 1."""
    q = tmp_path / "qrels"
    r = tmp_path / "run"
    q.write_text("".join(f"1 0 d{i} {lv}\n" for i, lv in enumerate([3, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0])))
    r.write_text("".join(f"1 Q0 d{i} {i + 1} {100 - i} run\n" for i in range(12)))
    a = readers.align_run(str(r), readers.read_qrels(str(q)), missing="skip")
    conv = fastndcg.get_preset("trec_eval").replace(discount="jk", discount_base=10.0)
    got = aligned_ndcg(a, convention=conv, gains="1=1,2=5,3=9")
    assert got.tolist() == [1.0]
    # and base 10 is not base 2: the DCG itself differs
    base2 = fastndcg.get_preset("trec_eval").replace(discount="jk", discount_base=2.0)
    r.write_text("".join(f"1 Q0 d{i} {i + 1} {i} run\n" for i in range(12)))     # reversed: not ideal
    a = readers.align_run(str(r), readers.read_qrels(str(q)), missing="skip")
    assert aligned_ndcg(a, convention=conv, gains="1=1,2=5,3=9")[0] != aligned_ndcg(a, convention=base2,
                                                                                    gains="1=1,2=5,3=9")[0]
