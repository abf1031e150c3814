-- The hall guards: a word of warning for newcomers, and at night a different one.

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
