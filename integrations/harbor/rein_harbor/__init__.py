"""rein as a Harbor installed agent (``harbor run -a rein_harbor:Rein``)."""

from rein_harbor.agent import Rein

__all__ = ["Rein"]
