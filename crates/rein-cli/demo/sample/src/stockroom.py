"""Track items in a stockroom: quantities and unit prices."""


class Stockroom:
    def __init__(self):
        self._items = {}

    def add(self, name, quantity, unit_price):
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        count, _ = self._items.get(name, (0, unit_price))
        self._items[name] = (count + quantity, unit_price)

    def remove(self, name, quantity):
        # TODO: refuse to remove more than is in stock instead of going negative
        count, price = self._items[name]
        self._items[name] = (count - quantity, price)

    def quantity(self, name):
        return self._items.get(name, (0, 0))[0]

    def total_value(self):
        return sum(count * price for count, price in self._items.values())
