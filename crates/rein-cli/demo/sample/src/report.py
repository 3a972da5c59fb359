"""Plain-text reports of a stockroom."""

from stockroom import Stockroom


def summary(room: Stockroom) -> str:
    # TODO: sort items by value, largest first
    return f"total value: {room.total_value():.2f}"
