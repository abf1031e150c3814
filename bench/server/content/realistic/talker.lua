-- The content suite's talking creatures (bench/server/world.ts, `scripted`; docs/benchmarks.md § Content):
-- what a host's script does for each talk, as maps/caves.content/old-tom.lua does — a quest's standing and
-- an item count looked up, a dialog with three choices, and the answer acted on (a line of news, a quest
-- started, stepped or handed in with its reward). Every talker is of one kind, so one state serves them all.

quest.define{
  id = "bench_errand",
  title = "Errands",
  text = "Ask the people of the caves for work three times.",
  goal = 3,
  giver = "bench talker",
  reward = { ["gold coin"] = 2 },
}

local news = {
  "The tunnels to the north flood when it rains.",
  "Skeletons open doors. Shut ones won't save you.",
  "Glow crystals fetch a good price, if you find any.",
  "Something big moved in the deep caves last night.",
}

local function work(npc, player)
  local errand = quest.state(player, "bench_errand")
  if errand.state == "ready" then
    quest.complete(player, "bench_errand", function(outcome)
      if outcome == "ok" then tell(player, "That's the lot. Here's your pay.", npc.name) end
    end)
  elseif errand.state == "active" then
    quest.progress(player, "bench_errand", 1)
  elseif quest.offered(player, "bench_errand") then
    quest.start(player, "bench_errand")
  else
    tell(player, "Nothing more today.", npc.name)
  end
end

on.talk("bench talker", function(npc, player)
  local errand = quest.state(player, "bench_errand")
  local coins = items.count(player, "gold coin")
  local text
  if errand.state == "active" then
    text = "Still at it? " .. errand.progress .. " of " .. errand.goal .. " done."
  elseif errand.state == "ready" then
    text = "You've done enough. Come for your pay."
  else
    text = "You carry " .. coins .. " gold. Looking for work?"
  end
  ask(player, { title = npc.name, text = text, choices = { "Any news?", "Work?", "Goodbye" } }, function(choice)
    if choice == 1 then
      tell(player, news[random(#news)], npc.name)
    elseif choice == 2 then
      work(npc, player)
    end
  end)
end)
