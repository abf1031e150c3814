-- Mira the merchant, in the great hall: what the gold you find is for.
-- A shop is data (what it sells and buys, at what price, how many it holds); the conversation before
-- it is a dialog. Buying and selling are done by the server, one exchange with your bag each, saved
-- before you hear about it (docs/content.md § Shops).

shop.define{
  id = "hall_store",
  title = "Mira's wares",
  greeting = "Potions, torches, honest steel. Gold coins only.",
  sells = {
    { item = "healing potion", price = 8, stock = 12, restock = 60 },
    { item = "torch", price = 12, stock = 4, restock = 300 },
    { item = "dagger", price = 20, stock = 3, restock = 600 },
    { item = "leather armor", price = 30, stock = 2, restock = 900 },
    { item = "short sword", price = 60, stock = 1, restock = 1800 },
  },
  buys = {
    { item = "glow crystal", price = 4 },
    { item = "dagger", price = 6 },
    { item = "chain mail", price = 40 },
  },
}

local greetings = {
  "Back from the tunnels in one piece? Good. Business is better with living customers.",
  "Spiders took another lamp-boy last week. Buy a torch.",
  "Glow crystals fetch a fair price. The beetles drop them, if you are quick.",
}

on.talk("Mira the merchant", function(mira, player)
  ask(player, {
    title = mira.name,
    text = greetings[random(#greetings)],
    choices = { "Show me your wares", "Any advice?", "Goodbye" },
  }, function(choice)
    if choice == 1 then
      shop.open(player, "hall_store", mira.name)
    elseif choice == 2 then
      tell(player, "Sell what glows, keep what heals. And never chase a skeleton through a door.", mira.name)
    end
  end)
end)
