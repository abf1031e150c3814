-- A hostile script for the content suite (docs/benchmarks.md § Content): every talk grows a table the state
-- keeps, until the state's memory cap (8 MiB) stops it (scripts.memoryStops) — or, while the state still has
-- room, the instruction budget (allocation is charged to it). Once the state is full, every talk runs into
-- the cap at its first allocation, with the collector's last-ditch pass over a full 8 MiB heap before it.
local hoard = {}
on.talk("bench talker", function(npc, player)
  while true do
    hoard[#hoard + 1] = { npc.id, player.id, #hoard }
  end
end)
