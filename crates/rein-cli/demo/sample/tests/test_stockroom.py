import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from stockroom import Stockroom  # noqa: E402


class StockroomTest(unittest.TestCase):
    def test_add_accumulates(self):
        room = Stockroom()
        room.add("bolt", 10, 0.25)
        room.add("bolt", 5, 0.25)
        self.assertEqual(room.quantity("bolt"), 15)

    def test_total_value(self):
        room = Stockroom()
        room.add("bolt", 10, 0.25)
        room.add("nut", 4, 0.5)
        self.assertAlmostEqual(room.total_value(), 4.5)

    def test_rejects_non_positive_quantities(self):
        with self.assertRaises(ValueError):
            Stockroom().add("bolt", 0, 1.0)


if __name__ == "__main__":
    unittest.main()
