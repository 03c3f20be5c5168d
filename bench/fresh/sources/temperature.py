"""Convert temperatures between Celsius and Fahrenheit."""


def to_fahrenheit(celsius: float) -> float:
    """Degrees Celsius in degrees Fahrenheit."""
    return celsius * 9 / 5 + 32


def to_celsius(fahrenheit: float) -> float:
    """Degrees Fahrenheit in degrees Celsius."""
    if fahrenheit < -459.67:
        raise ValueError("below absolute zero")
    return (fahrenheit - 32) * 5 / 9
