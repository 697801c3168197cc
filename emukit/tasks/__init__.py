"""Online milestone tasks (seeds 000/001): the task format (:mod:`.schema`), milestone checks (:mod:`.checks`),
device sessions (:mod:`.session`), verification (:mod:`.verify`), annotations (:mod:`.annotations`) and the
task files on the search path (:mod:`.files`)."""
