-- The hall guards: a word of warning for newcomers, and at night a different one. And a shout after
-- anyone who walks out of the great hall with nothing to fight with (docs/content.md § Zones).

local warnings = {
  "Keep to the hall until you've a blade. Spiders wait in every tunnel out of here.",
  "Skeletons open doors. Shut ones won't save you.",
  "Mira sells potions. Old Tom has work, if you've the stomach for rats.",
}

on.talk("hall guard", function(guard, player)
  if world.night() then
    tell(player, "It's dark out there. The caves are busier at night; more of them come out.", guard.name)
  else
    tell(player, warnings[random(#warnings)], guard.name)
  end
end)

-- Whom the guards shouted after, and when (by player id; a minute between two shouts at one player).
-- Script variables are lost on a reload, which is fine for this: at worst someone is warned twice.
local shouted = {}
local shouted_count = 0
local SHOUT_AGAIN_TICKS = 24 * 60

local function armed(player)
  return items.count(player, "dagger") + items.count(player, "short sword") + items.count(player, "torch") > 0
end

on.leave("great hall", function(player)
  if armed(player) then return end
  local last = shouted[player.id]
  if last and world.tick() - last < SHOUT_AGAIN_TICKS then return end
  -- Forget the old ones now and then, so the table stays small however many come and go.
  if shouted_count > 500 then
    local kept, count = {}, 0
    for id, tick in pairs(shouted) do
      if world.tick() - tick < SHOUT_AGAIN_TICKS then kept[id] = tick count = count + 1 end
    end
    shouted, shouted_count = kept, count
  end
  if not shouted[player.id] then shouted_count = shouted_count + 1 end
  shouted[player.id] = world.tick()
  tell(player, "Oi! Not out there with bare hands. Mira sells daggers, or check the supply chest.", "hall guard")
end)
