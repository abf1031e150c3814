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
---@field level integer 1 … 20, from its experience (docs/combat.md § Experience and levels)
---@field xp integer all the experience it has gathered
---@field account boolean false for a guest

---@class QuestStanding
---@field state "none"|"active"|"ready"|"done"
---@field progress integer
---@field goal integer

---@class Zone
---@field name string
---@field x integer
---@field y integer
---@field width integer
---@field height integer

---@class QuestChange
---@field id string
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
---A player came into the map's zone named `zone` ("*": any zone): a `zone` object of the Tiled map.
---@param zone string
---@param handler fun(player: Player, zone: Zone)
function on.enter(zone, handler) end
---A player went out of the zone named `zone` ("*": any zone).
---@param zone string
---@param handler fun(player: Player, zone: Zone)
function on.leave(zone, handler) end
---A player reached another dungeon depth (1, 2, … below the map's stairs; 0 back on a map).
---@param handler fun(player: Player, depth: integer)
function on.level(handler) end
---A player took `count` of `item` from the ground or a chest ("*": any item), once it is saved.
---@param item string an item of the map's item catalogue
---@param handler fun(player: Player, item: string, count: integer)
function on.pickup(item, handler) end
---A player used one `item` (a consumable), once it is saved.
---@param item string
---@param handler fun(player: Player, item: string, count: integer)
function on.use(item, handler) end
---A player equipped `item` (a weapon, armour), once it is saved.
---@param item string
---@param handler fun(player: Player, item: string, count: integer)
function on.equip(item, handler) end
---A player's standing in quest `id` changed ("*": any quest), once it is saved.
---@param id string
---@param handler fun(player: Player, quest: QuestChange)
function on.quest(id, handler) end
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
---@field xp? integer experience handing it in gives, 0 … 2000 (saved with the quest)
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
---Gives the player experience: its level, and with it its hit points and blows, may grow.
---@param player Player|integer
---@param xp integer 1 … 2000
---@return integer gained what it gained (0 once it holds the most experience there is)
function give_xp(player, xp) end
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

---A creature of `kind` on free tile (x, y), never replaced when it dies (at most 256 of a file's at once).
---@param kind string
---@param x integer
---@param y integer
---@param name? string shown instead of the kind's name
---@return integer id the creature's entity id
function spawn(kind, x, y, name) end
---Takes away a creature this file spawned.
---@param npc Creature|integer
---@return boolean gone false if it was not this file's, or is gone already
function despawn(npc) end

tile = {}
---@param x integer
---@param y integer
---@return integer id the cell's tile id
function tile.get(x, y) end
---Changes a cell's tile: every client sees it, movement follows it. Until the server restarts.
---@param x integer
---@param y integer
---@param id integer one of the map's tiles
---@return boolean done false for a blocking tile where someone stands
function tile.set(x, y, id) end

---Opens (unlocking it), closes, locks (closing it) or unlocks the door on (x, y).
---@param x integer
---@param y integer
---@param state "open"|"close"|"lock"|"unlock"
---@return boolean done false if it cannot close on someone standing in it
function door(x, y, state) end

---A line to every player.
---@param text string
---@param speaker? string
function announce(text, speaker) end
