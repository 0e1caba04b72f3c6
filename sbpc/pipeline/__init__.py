"""Pipeline parallelism: microbatches as SBP over time, stages as placements.

A training step (forward, backward, optimizer update) becomes a loop over
``m`` microbatches cut into ``s`` stages (docs/pipeline.md):

- ``function``: the step as plain data (ops, values, arguments, results);
- ``microbatch``: each value's layout over *time* (the microbatch loop):
  ``S(k)`` runs per microbatch, ``B`` once outside the loop, ``P(sum)`` is a
  contribution summed over the microbatches (gradients, the loss);
- ``placements``: the stage axis cut into one placement per stage;
- ``stages``: the loop's ops cut into stages and forward/backward phases;
- ``schedule``: GPipe and 1F1B task orders, simulated on per-task times;
- ``tasks``: a boxed program split into per-stage tasks for the emitter;
- ``steps``: the driver's steps of one call, in a schedule's order;
- ``cost``: a plan's step time and memory per stage under a schedule;
- ``search``: stages, microbatches and schedule picked under a budget;
- ``report``/``units``: the text report and the HTML timeline;
- ``emit``/``runtime_template``: the JAX module that runs the schedule.
"""
