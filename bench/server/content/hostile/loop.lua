-- A hostile script for the content suite (docs/benchmarks.md § Content): every talk runs to the event's
-- instruction budget (500,000) and is stopped there (scripts.budgetStops).
on.talk("bench talker", function(npc, player)
  while true do end
end)
