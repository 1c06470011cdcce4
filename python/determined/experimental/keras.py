"""``determined.experimental.keras`` (the Native API's ``keras.init``) needs TensorFlow, as
``determined.keras`` does: importing it raises that module's ImportError, which names what
works instead."""

import importlib

importlib.import_module("determined.keras")
