"""Step Functions task handlers, one module per pipeline step (DESIGN §4).

Each handler takes the step's pydantic input and returns its output via ``tanda.pipeline``. They
must not import FastAPI (or ``tanda.api``): these functions start cold on every scale-out and
pay only for what they import. The state machine (``infra/statemachines/``) and the tasks in
``template.yaml`` are added by the AWS issue.
"""
