"""YARN's rules as pure functions of their inputs: the policies' comparators and calculators,
the AM-share limit, delay scheduling's locality levels and YARN's iteration orders. Imports
nothing from ``fairshare.core``: the records and every step build on them."""
