-- Old Tom, on his bench in the great hall: work for newcomers, one job after another.
-- Quests are data the server keeps per character (saved before you hear of a change); the script
-- decides when each moves on. docs/content.md § Quests walks through this file. Each quest's `xp` is
-- experience handed over with its reward (docs/combat.md § Experience and levels).

quest.define{
  id = "rat_cull",
  title = "Rats in the grain",
  text = "Old Tom wants 5 cave rats dead. They nest in the great hall's corners.",
  goal = 5,
  giver = "Old Tom",
  reward = { ["gold coin"] = 15, ["healing potion"] = 1 },
  xp = 35, -- with the five rats' 15, a newcomer's second level
}

quest.define{
  id = "glow_crystals",
  title = "Light for the old man",
  text = "Bring Old Tom 3 glow crystals. Glow beetles drop them.",
  goal = 3,
  giver = "Old Tom",
  requires = { "rat_cull" },
  hand_in = { ["glow crystal"] = 3 },
  reward = { ["gold coin"] = 30, torch = 1 },
  xp = 60,
}

quest.define{
  id = "the_vault",
  title = "The vault key",
  text = "A rusty key lies in the dusty chest of a far hall. Open the vault with it, then bring the key back to Old Tom.",
  goal = 1,
  giver = "Old Tom",
  requires = { "glow_crystals" },
  hand_in = { ["rusty key"] = 1 },
  reward = { ["gold coin"] = 50 },
  xp = 120,
}

quest.define{
  id = "delve",
  title = "Down the stairs",
  text = "Old Tom wants to know what lies below. Take the stairs down, reach the second level of the dungeon, and come back to tell him.",
  goal = 1,
  giver = "Old Tom",
  requires = { "rat_cull" },
  reward = { ["gold coin"] = 40, ["healing potion"] = 2 },
  xp = 150,
}

-- The dungeon's levels are generated below the map's stairs: depth 1, 2, … (on.level hears each).
on.level(function(player, depth)
  if depth >= 2 and quest.state(player, "delve").state == "active" then
    quest.progress(player, "delve", 1)
    tell(player, "The second level. That's deep enough to tell Old Tom about.", "")
  end
end)

on.kill("cave rat", function(player, rat)
  local standing = quest.progress(player, "rat_cull", 1)
  if standing and standing.state == "ready" then
    tell(player, "That's five. Old Tom will want to hear of it.", "Old Tom")
  end
end)

-- Carried items are counted when you talk to him, and as you pick them up: a fetch quest is ready once
-- you hold enough.
local function catch_up(player)
  local crystals = quest.state(player, "glow_crystals")
  if crystals.state == "active" then
    local held = math.min(items.count(player, "glow crystal"), crystals.goal)
    if held > crystals.progress then quest.progress(player, "glow_crystals", held - crystals.progress) end
  end
  local vault = quest.state(player, "the_vault")
  if vault.state == "active" and items.count(player, "rusty key") > 0 then quest.progress(player, "the_vault", 1) end
end

local offers = {
  rat_cull = "The rats are at the grain again. Kill five of them for me, and there's coin in it.",
  glow_crystals = "My eyes are going. Bring me three glow crystals and I'll give you a torch of your own.",
  the_vault = "There's a vault in these caves nobody has opened in my lifetime. The key's in a dusty chest, far out. Open it, and bring the key back.",
  delve = "Nobody who went down those stairs has told me what's below. Go down two levels, and come back and tell me.",
}
local thanks = {
  rat_cull = "Five rats! The grain is safe for a week. Here.",
  glow_crystals = "Ah, that's better. Take the torch; you'll need it more than I do.",
  the_vault = "So it's open at last. Keep what you found in there, and take this besides.",
  delve = "Two levels down, and back on your own feet! Here, you've earned this.",
}
-- Offered in this order; the delve runs beside the fetch quests once the rats are done.
local order = { "rat_cull", "delve", "glow_crystals", "the_vault" }

on.pickup("glow crystal", function(player)
  local before = quest.state(player, "glow_crystals").state
  catch_up(player)
  if before == "active" and quest.state(player, "glow_crystals").state == "ready" then
    tell(player, "Three glow crystals. Old Tom will be glad of them.", "")
  end
end)
on.pickup("rusty key", function(player) catch_up(player) end)

on.talk("Old Tom", function(tom, player)
  catch_up(player)
  for _, id in ipairs(order) do
    local standing = quest.state(player, id)
    if standing.state == "ready" then
      quest.complete(player, id, function(outcome)
        if outcome == "ok" then
          tell(player, thanks[id], tom.name)
        elseif outcome == "full" then
          tell(player, "Make some room in your bag first.", tom.name)
        else
          tell(player, "You're one short. Come back when you have it all.", tom.name)
        end
      end)
      return
    end
    if standing.state == "active" then
      tell(player, "Still working on it? " .. offers[id], tom.name)
      return
    end
    if quest.offered(player, id) then
      ask(player, { title = tom.name, text = offers[id], choices = { "I'll do it", "Not now" } }, function(choice)
        if choice == 1 and quest.start(player, id) then
          tell(player, "Good. Press J to see what you owe me.", tom.name)
        end
      end)
      return
    end
  end
  tell(player, "You've done more than enough. Sit, rest a while.", tom.name)
end)
