"""What runs in a trial's own process: the Tune trainable (RLlib's APPO built from a trial spec)
and what it imports: the stall watchdog, the inbox a stalled trial reports to, and the hardware
of the node it runs on. It imports nothing else of the sweep but the spec, so a trial process
never loads the command, the planner or the driver's callbacks."""
