"""Fixed-rate loan arithmetic: monthly payments and total interest."""


def monthly_payment(principal: float, annual_rate: float, years: int) -> float:
    """Monthly payment of a fixed-rate loan, rounded to cents.

    annual_rate is a percentage (6 means 6 % a year). A rate of 0 splits the
    principal evenly over the months.
    """
    if years < 1:
        raise ValueError("years must be at least 1")
    months = years * 12
    if annual_rate == 0:
        return round(principal / months, 2)
    r = annual_rate / 100 / 12
    return round(principal * r / (1 - (1 + r) ** -months), 2)


def total_interest(principal: float, annual_rate: float, years: int) -> float:
    """Interest paid over the whole loan: all payments minus the principal."""
    return round(monthly_payment(principal, annual_rate, years) * years * 12 - principal, 2)


def max_principal(payment: float, annual_rate: float, years: int) -> float:
    """The largest principal a monthly payment can repay, rounded to cents."""
    if years < 1:
        raise ValueError("years must be at least 1")
    months = years * 12
    if annual_rate == 0:
        return round(float(payment) * months, 2)
    r = annual_rate / 100 / 12
    return round(payment * (1 - (1 + r) ** -months) / r, 2)
