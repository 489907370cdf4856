"""Independent reference for the experiment statistics tests: reads the cases as JSON on stdin,
answers each with scipy.stats (and numpy on the raw per-unit values), writes JSON on stdout."""
import json
import math
import sys

import numpy as np
from scipy import optimize, stats


def welch_df(var_t, n_t, var_c, n_c):
    a, b = var_t / n_t, var_c / n_c
    return (a + b) ** 2 / (a ** 2 / (n_t - 1) + b ** 2 / (n_c - 1))


def compare(case, m_t, v_t, n_t, m_c, v_c, n_c, t_test=None):
    """Difference, its variance (delta method when relative), then the method's numbers."""
    if case["difference"] == "absolute":
        delta, var = m_t - m_c, v_t / n_t + v_c / n_c
    else:
        delta = (m_t - m_c) / m_c
        var = v_t / (n_t * m_c ** 2) + m_t ** 2 * v_c / (n_c * m_c ** 4)
    se = math.sqrt(var)
    if case["method"] == "bayesian":
        z = stats.norm.ppf(1 - (1 - case["level"]) / 2)
        return {"chance": float(stats.norm.cdf(delta / se)), "lo": delta - z * se, "hi": delta + z * se}
    df = welch_df(v_t, n_t, v_c, n_c)
    p = 2 * stats.t.sf(abs(delta / se), df)
    if t_test is not None:
        # absolute difference of plain means: scipy's own Welch test must agree
        p = t_test
    crit = stats.t.ppf(1 - case["level"] / 2, df)
    return {"p": float(p), "lo": delta - crit * se, "hi": delta + crit * se}


def mean_case(case):
    t, c = np.array(case["test"], dtype=float), np.array(case["control"], dtype=float)
    t_test = None
    if case["difference"] == "absolute" and case["method"] == "frequentist":
        t_test = stats.ttest_ind(t, c, equal_var=False).pvalue
    return compare(case, t.mean(), t.var(ddof=1), len(t), c.mean(), c.var(ddof=1), len(c), t_test)


def funnel_case(case):
    (n_t, k_t), (n_c, k_c) = case["test"], case["control"]
    p_t, p_c = k_t / n_t, k_c / n_c
    v_t, v_c = p_t * (1 - p_t), p_c * (1 - p_c)
    t_test = None
    if case["difference"] == "absolute" and case["method"] == "frequentist":
        t_test = stats.ttest_ind_from_stats(p_t, math.sqrt(v_t), n_t, p_c, math.sqrt(v_c), n_c, equal_var=False).pvalue
    return compare(case, p_t, v_t, n_t, p_c, v_c, n_c, t_test)


def ratio_moments(group):
    num, den = np.array(group["num"], dtype=float), np.array(group["den"], dtype=float)
    m_n, m_d = num.mean(), den.mean()
    cov = np.cov(num, den, ddof=1)
    var = cov[0, 0] / m_d ** 2 + m_n ** 2 * cov[1, 1] / m_d ** 4 - 2 * m_n * cov[0, 1] / m_d ** 3
    return num.sum() / den.sum(), var, len(num)


def ratio_case(case):
    r_t, v_t, n_t = ratio_moments(case["test"])
    r_c, v_c, n_c = ratio_moments(case["control"])
    return compare(case, r_t, v_t, n_t, r_c, v_c, n_c)


def srm_case(case):
    observed = np.array(case["observed"], dtype=float)
    shares = np.array(case["shares"], dtype=float)
    expected = observed.sum() * shares / shares.sum()
    return float(stats.chisquare(observed, expected).pvalue)


def variance_of(case, effect=0.0):
    if case["metric"] == "funnel":
        p = case["baseline"] * (1 + effect)
        return p * (1 - p)
    return case["variance"]


def sample_size_case(case):
    z = stats.norm.ppf(1 - case["alpha"] / 2) + stats.norm.ppf(case["power"])
    delta = case["mde"] * case["baseline"]
    return float(z ** 2 * (variance_of(case) + variance_of(case, case["mde"])) / delta ** 2)


def mde_case(case):
    z = stats.norm.ppf(1 - case["alpha"] / 2) + stats.norm.ppf(case["power"])
    n, base = case["n"], case["baseline"]
    if case["metric"] == "mean":
        return float(z * math.sqrt(2 * case["variance"] / n) / abs(base))

    def gap(effect):
        return z ** 2 * (variance_of(case) + variance_of(case, effect)) / (effect * base) ** 2 - n

    top = (1 - base) / base * (1 - 1e-12)
    return float(optimize.brentq(gap, 1e-12, top, xtol=1e-14))


def main():
    cases = json.load(sys.stdin)
    out = {
        "normal_cdf": [float(stats.norm.cdf(x)) for x in cases["normal_cdf"]],
        "normal_ppf": [float(stats.norm.ppf(p)) for p in cases["normal_ppf"]],
        "t_cdf": [float(stats.t.cdf(t, df)) for t, df in cases["t_cdf"]],
        "t_ppf": [float(stats.t.ppf(p, df)) for p, df in cases["t_ppf"]],
        "chi2_sf": [float(stats.chi2.sf(x, df)) for x, df in cases["chi2_sf"]],
        "mean": [mean_case(c) for c in cases["mean"]],
        "funnel": [funnel_case(c) for c in cases["funnel"]],
        "ratio": [ratio_case(c) for c in cases["ratio"]],
        "srm": [srm_case(c) for c in cases["srm"]],
        "sample_size": [sample_size_case(c) for c in cases["sample_size"]],
        "mde": [mde_case(c) for c in cases["mde"]],
    }
    json.dump(out, sys.stdout)


main()
