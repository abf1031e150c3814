---@meta
-- The content API (docs/content.md § The API), declared for the Lua language server (LuaLS): open the
-- map folder as the workspace and an editor completes and checks every call. This file is never run:
-- the server gives these functions to each script of <map>.content/ itself.

---@class Creature
---@field id integer
---@field name string
---@field kind string
---@field x integer
---@field y integer
---@field hp integer
---@field hp_max integer

---@class Player
---@field id integer
---@field name string
---@field x integer
---@field y integer
---@field hp integer
---@field hp_max integer
---@field account boolean false for a guest

---@class QuestStanding
---@field state "none"|"active"|"ready"|"done"
---@field progress integer
---@field goal integer

---@alias ItemCounts table<string, integer> item name → count
---@alias Outcome "ok"|"no_item"|"full"|"failed"|"unknown"|"not_ready"

on = {}
---A player uses (talks to) a creature of `kind` from within 2 tiles.
---@param kind string a kind of the map's kinds file
---@param handler fun(npc: Creature, player: Player)
function on.talk(kind, handler) end
---A player killed a creature of `kind` ("*": any kind).
---@param kind string
---@param handler fun(player: Player, npc: Creature)
function on.kill(kind, handler) end
---Night falls (the world clock).
---@param handler fun()
function on.night(handler) end
---Day breaks.
---@param handler fun()
function on.day(handler) end

quest = {}
---@class QuestSpec
---@field id string letters, digits and "_", at most 32
---@field title? string
---@field text? string what to do, as the quest log says it
---@field goal? integer 1 … 10000 (default 1)
---@field giver? string the kind that gives it and takes it back
---@field requires? string[] quests done before this one is offered
---@field reward? ItemCounts
---@field hand_in? ItemCounts what handing it in takes from the player

---@param spec QuestSpec
function quest.define(spec) end
---@param player Player|integer
---@param id string
---@return QuestStanding
function quest.state(player, id) end
---@param player Player|integer
---@param id string
---@return boolean
function quest.offered(player, id) end
---@param player Player|integer
---@param id string
---@return boolean started
function quest.start(player, id) end
---@param player Player|integer
---@param id string
---@param n? integer default 1
---@return QuestStanding|nil standing nil unless the quest is active
function quest.progress(player, id, n) end
---Hands a ready quest in: hand_in taken, reward given, done — one transaction.
---@param player Player|integer
---@param id string
---@param done? fun(outcome: Outcome)
function quest.complete(player, id, done) end

shop = {}
---@class Ware
---@field item string
---@field price integer
---@field stock? integer absent: never runs out
---@field restock? number seconds per unit back, while below `stock`

---@class ShopSpec
---@field id string
---@field title? string
---@field greeting? string
---@field currency? string an item's name (default "gold coin")
---@field sells? Ware[]
---@field buys? { item: string, price: integer }[]

---@param spec ShopSpec
function shop.define(spec) end
---@param player Player|integer
---@param id string
---@param speaker? string
function shop.open(player, id, speaker) end
---@param id string
---@param item string
---@return integer|nil stock nil: unlimited
function shop.stock(id, item) end

items = {}
---@param player Player|integer
---@param item string
---@return integer
function items.count(player, item) end
---One exchange with the player's bag: all of `take` leaves, all of `give` arrives, or nothing changes.
---@param player Player|integer
---@param change { take?: ItemCounts, give?: ItemCounts }
---@param done? fun(outcome: Outcome)
function items.exchange(player, change, done) end

world = {}
---@return integer tick the world's tick (24 a second)
function world.tick() end
---@return boolean
function world.night() end

---The creature says `text` to the players near it.
---@param npc Creature|integer
---@param text string
function say(npc, text) end
---A line to one player.
---@param player Player|integer
---@param text string
---@param speaker? string
function tell(player, text, speaker) end
---A dialog with 1 … 10 choices; `answer` gets the choice's number (1 …), or 0 when dismissed.
---@param player Player|integer
---@param dialog { title?: string, text?: string, choices?: string[] }
---@param answer? fun(choice: integer)
function ask(player, dialog, answer) end
---Moves the player to a free tile.
---@param player Player|integer
---@param x integer
---@param y integer
function warp(player, x, y) end
---Calls `fn` once, `ticks` ticks from now (at most an hour ahead).
---@param ticks integer
---@param fn fun()
function after(ticks, fn) end
---1 … n from the world's seeded stream.
---@param n integer
---@return integer
function random(n) end
---A line in the status's script log.
---@param text string
function log(text) end
