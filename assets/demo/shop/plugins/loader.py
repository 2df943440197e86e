"""Load plugin modules by dotted name.

The module name comes from configuration, so neither the import nor the
``register`` call below can be resolved statically.
"""

import importlib

HOOK_EVENTS = ("order_placed", "payment_failed")


def new_hooks():
    return {event: [] for event in HOOK_EVENTS}


def load_plugins(names, hooks=None):
    hooks = hooks if hooks is not None else new_hooks()
    loaded = []
    for name in names:
        module = importlib.import_module(name)
        register = getattr(module, "register", None)
        if register is None:
            raise ImportError("plugin %s has no register(hooks)" % name)
        register(hooks)
        loaded.append(module)
    return hooks, loaded
