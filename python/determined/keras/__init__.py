"""``determined.keras`` (TFKerasTrial, TFKerasTrialContext, the Native API's ``keras.init``) needs
TensorFlow, which the Debian archive does not package and hpsearch does not install. Importing it
raises an ImportError that names what works instead."""

raise ImportError(
    "determined.keras (TFKerasTrial and the Native API's keras.init) needs TensorFlow, which is not "
    "available here (Debian packages no TensorFlow). Port the model to PyTorch and subclass "
    "determined.pytorch.PyTorchTrial, or train it with the Core API (det.core.init()): see "
    "docs/trial-api.md")
