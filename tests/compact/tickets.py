"""Pasted tickets as users write them: what the pinned block must keep the constraints of."""

from __future__ import annotations

BACKGROUND = (
    "We run a small webshop on Django 4.2 and the cart module has grown by accretion since 2019. "
    "The totals were first computed in the template, then moved into a helper, then copied into the API layer when "
    "the mobile app arrived, and nobody removed the older copies. Last quarter finance noticed that orders with a "
    "discount code and more than one shipping address were sometimes off by a cent, and support has a macro for it. "
    "The tax rules differ per region and the region is looked up twice, once from the session and once from the "
    "address, which is where the two copies disagree. Most of the code lives in src/shop/cart.py, src/shop/tax.py "
    "and src/shop/api/views.py; the models are in src/shop/models/. There is a management command that recomputes "
    "old orders, which we used once after the VAT change and which nobody has run since. "
)

CONSTRAINT_TESTS = "Do not modify anything under tests/; the suite is the contract with the mobile team."
CONSTRAINT_NAMES = "Keep every public function name in src/shop/cart.py, since the app imports them by name."
CONSTRAINT_DEPS = "You must not add new dependencies to pyproject.toml."

TICKET_4K = (
    "SHOP-1432: cart totals off by one cent with discount codes\n\n"
    "## Background\n" + BACKGROUND * 3 + "\n\n## What we want\n"
    "The totals should be computed in exactly one place. " + CONSTRAINT_TESTS + " " + CONSTRAINT_NAMES + " " + CONSTRAINT_DEPS + " "
    "Rounding happens once, at the end, with Decimal and ROUND_HALF_EVEN.\n\n"
    "## More context\n" + BACKGROUND + "\n\n## Acceptance notes\n"
    "1. The existing test suite passes unchanged.\n"
    "2. A new order with code SAVE10 and two addresses totals 89.91, not 89.92.\n"
    "3. The API and the template show the same total for the same cart.\n"
)

BUG_REPORT = """Checkout crashes when the cart is empty (reported by two customers this morning).

Steps: log in, empty the cart, press "Checkout".

Traceback (most recent call last):
  File "/srv/shop/src/shop/api/views.py", line 88, in checkout
    total = cart_total(request.cart)
  File "/srv/shop/src/shop/cart.py", line 142, in cart_total
    return sum(line.price for line in cart.lines) / len(cart.lines)
ZeroDivisionError: division by zero
2026-11-30 09:12:44 ERROR shop.api checkout failed for user 4411

```
$ python -m pytest tests/test_cart.py -q
F.........
E   ZeroDivisionError: division by zero
```

The fix should return a total of 0 for an empty cart. Never swallow the exception in the view; fix it where it happens.
Please keep the error log line as it is, ops alerts on it. The other crash reports are unrelated.
"""

LIST_TICKET = """Refactor the settings loader

Context:
- the loader reads three files and an environment
- it was written before we had typed settings

Requirements:
- [ ] One function load_settings(path) that returns a frozen dataclass
- [ ] Environment variables override the files
- [ ] Unknown keys are an error naming the file and the key
- [ ] Only read files inside the project directory

Out of scope:
- the CLI flags

Notes:
* do not rename the SETTINGS_PATH constant
* the old loader can stay until the next release
"""
