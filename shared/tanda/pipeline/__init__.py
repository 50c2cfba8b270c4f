"""The steps of a request and the runner that chains them under one deadline."""
