"""Savings arithmetic: compound interest on a deposit, and how long it takes to grow."""

import math


def compound(principal: float, annual_rate: float, years: int, per_year: int = 12) -> float:
    """The balance after `years`, with `annual_rate` percent a year compounded
    `per_year` times a year, rounded to cents."""
    if per_year < 1:
        raise ValueError("per_year must be at least 1")
    rate = annual_rate / 100 / per_year
    return round(principal * (1 + rate) ** (per_year * years), 2)


def years_to_double(annual_rate: float) -> int:
    """Whole years until a deposit at least doubles, compounded once a year."""
    if annual_rate <= 0:
        raise ValueError("annual_rate must be positive")
    return math.ceil(math.log(2) / math.log(1 + annual_rate / 100))
