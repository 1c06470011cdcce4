"""``determined.errors``: the exceptions Determined's harness raises for a trial it cannot run."""


class InvalidExperimentException(Exception):
    """The model definition cannot be trained as written (e.g. no wrapped model)."""


class InvalidConfigurationException(Exception):
    """The experiment configuration does not fit the trial."""
