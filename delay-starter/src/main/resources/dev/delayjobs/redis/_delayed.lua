--! include: _chunks, _record
-- Delayed jobs (docs/architecture.md#delayed-pages and #groups). The queue's delayed zset holds
-- marks, each scored with the due time (epoch ms) of the earliest job of the zset it stands for, so
-- its head is still the queue's next due time (timers, wakes and the oldest overdue read it as
-- before). No id or group has a control character:
--   MARK .. g   group g's jobs, in the zset <delayed>:<g> (scored with their due times); a transfer
--               that meets it moves a share of g's due jobs (transfer.lua), so a flood of one group
--               does not hold back another group's jobs due after it.
--   PAGE .. n   a page of the default group's jobs, the zset <delayed>:\2<n>. Pages cover disjoint
--               ranges of due times: the index zset <delayed>-pages scores page n with its range's
--               lower bound, and a job due at d is in the page of the greatest bound <= d (none: in
--               no page). A page holds about PAGE_SIZE jobs, under zset-max-listpack-entries (128),
--               so Redis keeps it as a listpack: about 26 bytes a job where one skiplist zset of
--               every job costs about 100. Only jobs due at one instant (never split apart) make a
--               page bigger.
-- A job of the default group is found by its due time, which its record holds (_record.lua): every
-- caller that moves one passes the due time it was delayed until. A member of the delayed zset
-- that is neither mark is a job of the default group due at its score: one due within NEAR_MS of
-- its publish (short-lived bytes; pages would cost commands for them), one due before the last
-- page's bound (jobs that come in no order: placing them among the pages would cost a lookup and a
-- split every few jobs; jobs due in publish order, as a fixed delay gives, all go to pages), one
-- whose record has no readable due time, or one written by hand; every reader looks in the page
-- first, then there.
-- The hash <delayed>-counts keeps 'jobs' (jobs in group zsets and pages), 'marks' (marks in the
-- delayed zset) and 'page' (the last page number), so that the number of delayed jobs is read in
-- O(1) (delayed_count). Group zsets and pages share the delayed key's hash tag ({q}).
local MARK, PAGE = '\1', '\2'
local PAGE_SIZE = 100
-- most jobs a split moves: a page bigger than this (one instant's flood) is split only where the
-- side moved is this small
local MOST_MOVED = 1000
-- jobs the last page keeps when it splits
local LAST_FILL = 90
-- a job of the default group due within this of now (ms) waits as a plain member of the delayed
-- zset, not in a page: it leaves within a minute, so its bytes are short-lived, while pages cost
-- a few commands per run of jobs placed (near jobs published in random order: a run per few jobs)
local NEAR_MS = 60000

-- The zset of group g's delayed jobs.
local function group_delayed(delayed_key, g)
  return delayed_key .. ':' .. g
end

local function delayed_counts(delayed_key)
  return delayed_key .. '-counts'
end

-- The index of the default group's pages (the key exists while there is a page).
local function page_index(delayed_key)
  return delayed_key .. '-pages'
end

local function page_key(delayed_key, n)
  return delayed_key .. ':' .. PAGE .. n
end

-- The group a member of the delayed zset marks, or nil when the member is not a group's mark.
local function mark_group(member)
  if string.byte(member, 1) == 1 then return string.sub(member, 2) end
  return nil
end

-- The page a member of the delayed zset marks, or nil.
local function mark_page(member)
  if string.byte(member, 1) == 2 then return string.sub(member, 2) end
  return nil
end

-- The zset a mark stands for (a group's or a page), or nil when member is a job's id.
local function marked_set(delayed_key, member)
  local first = string.byte(member, 1)
  if first == 1 then return group_delayed(delayed_key, string.sub(member, 2)) end
  if first == 2 then return delayed_key .. ':' .. member end
  return nil
end

-- Scores g's mark with g's earliest delayed job, or removes it when g has none. O(log N).
local function rescore_mark(delayed_key, g)
  local head = redis.call('ZRANGE', group_delayed(delayed_key, g), 0, 0, 'WITHSCORES')
  if head[2] then
    if redis.call('ZADD', delayed_key, head[2], MARK .. g) == 1 then
      redis.call('HINCRBY', delayed_counts(delayed_key), 'marks', 1)
    end
  elseif redis.call('ZREM', delayed_key, MARK .. g) == 1 then
    redis.call('HINCRBY', delayed_counts(delayed_key), 'marks', -1)
  end
end

-- The page (number, as a string) whose range holds due time due, and its lower bound; nil when due
-- is before every page. O(log P) for P pages.
local function page_of(delayed_key, due)
  local found = redis.call('ZREVRANGEBYSCORE', page_index(delayed_key), due, '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
  return found[1], found[2]
end

-- The first page after due time due and its lower bound (a number), or nil when there is none. O(log P).
local function page_after(delayed_key, due)
  local found = redis.call('ZRANGEBYSCORE', page_index(delayed_key), '(' .. due, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  return found[1], found[2] and tonumber(found[2])
end

-- Scores page n's mark with its earliest job, or deletes the page's index entry and mark when it is
-- empty (the zset is gone then). O(log N).
local function rescore_page(delayed_key, n)
  local head = redis.call('ZRANGE', page_key(delayed_key, n), 0, 0, 'WITHSCORES')
  if head[2] then
    redis.call('ZADD', delayed_key, 'XX', head[2], PAGE .. n)
  else
    redis.call('ZREM', page_index(delayed_key), n)
    redis.call('ZREM', delayed_key, PAGE .. n)
    redis.call('HINCRBY', delayed_counts(delayed_key), 'marks', -1)
  end
end

-- Cuts the sorted {due, id, ...} of list[from..upto] (pair indexes) into pieces of about equal
-- size, at most size jobs each, or (fill given) of fill jobs each but the last, never between two
-- jobs due at the same instant. Returns the pair indexes the pieces after the first start at.
local function cut_points(list, from, upto, size, fill)
  local count = upto - from + 1
  local pieces = math.ceil(count / (fill or size))
  local cuts, last = {}, from
  for p = 1, pieces - 1 do
    local want = from + (fill and p * fill or math.floor(p * count / pieces))
    local cut
    for delta = 0, count do
      local up, down = want + delta, want - delta
      if up <= upto and up > last and list[2 * up - 1] ~= list[2 * up - 3] then cut = up; break end
      if down > last and down <= upto and list[2 * down - 1] ~= list[2 * down - 3] then cut = down; break end
      if up > upto and down <= last then break end
    end
    if cut and cut > last then
      cuts[#cuts + 1] = cut
      last = cut
    end
  end
  return cuts
end

-- Opens new pages for the sorted {due, id, ...} list[from..upto] (pair indexes), each piece of
-- cut_points a page whose lower bound is its earliest due time, each with its index entry and
-- mark. The caller has made sure these due times lie in no other page's range. Returns the jobs
-- added. One HINCRBY, then a ZADD per page and one ZADD of the index and one of the marks.
local function open_pages(delayed_key, list, from, upto)
  local starts = cut_points(list, from, upto, PAGE_SIZE)
  table.insert(starts, 1, from)
  local counts = delayed_counts(delayed_key)
  local last = redis.call('HINCRBY', counts, 'page', #starts)
  local entries, marks, added = {}, {}, 0
  for p, start in ipairs(starts) do
    local n = tostring(last - #starts + p)
    local stop = (starts[p + 1] or upto + 1) - 1
    added = added + redis.call('ZADD', page_key(delayed_key, n), unpack(list, 2 * start - 1, 2 * stop))
    entries[#entries + 1] = list[2 * start - 1]
    entries[#entries + 1] = n
    marks[#marks + 1] = list[2 * start - 1]
    marks[#marks + 1] = PAGE .. n
  end
  redis.call('ZADD', page_index(delayed_key), unpack(entries))
  redis.call('ZADD', delayed_key, unpack(marks))
  redis.call('HINCRBY', counts, 'marks', #starts)
  return added
end

-- {due, id, ...} of a ZRANGE ... WITHSCORES reply ({id, due, ...}).
local function scored_of(range)
  local scored = {}
  for j = 1, #range, 2 do
    scored[j] = range[j + 1]
    scored[j + 1] = range[j]
  end
  return scored
end

-- Splits the last page n (size jobs) when it has more than PAGE_SIZE, moving the jobs of the pieces
-- after the first into new pages: a page of up to MOST_MOVED + PAGE_SIZE jobs is read whole and cut
-- in pieces of LAST_FILL (jobs due a fixed delay after now arrive at the end: the pages they leave
-- behind stay nearly full); a bigger one (jobs due at one instant joined by others) is cut once,
-- at the first due time after the one in its middle, when what lies above has at most MOST_MOVED
-- jobs. Never splits jobs due at one instant apart.
local function split_page(delayed_key, n, size)
  if size <= PAGE_SIZE then return end
  local key = page_key(delayed_key, n)
  if size <= MOST_MOVED + PAGE_SIZE then
    local all = scored_of(redis.call('ZRANGE', key, 0, -1, 'WITHSCORES'))
    local upto = #all / 2
    local cuts = cut_points(all, 1, upto, PAGE_SIZE, LAST_FILL)
    if #cuts == 0 then return end
    redis.call('ZREMRANGEBYRANK', key, cuts[1] - 1, -1)
    open_pages(delayed_key, all, cuts[1], upto)
    return
  end
  local middle = math.floor(size / 2)
  local s = redis.call('ZRANGE', key, middle, middle, 'WITHSCORES')[2]
  local cut = redis.call('ZCOUNT', key, '-inf', s)
  if cut >= size or size - cut > MOST_MOVED then return end
  local upper = scored_of(redis.call('ZRANGE', key, cut, -1, 'WITHSCORES'))
  redis.call('ZREMRANGEBYRANK', key, cut, -1)
  open_pages(delayed_key, upper, 1, #upper / 2)
end

-- Adds the jobs of sorted[from..upto] (pair indexes) to page n, whose range they fall in (card: its
-- size before); rescores its mark. Returns the jobs added and the page's size.
local function join_page(delayed_key, n, sorted, from, upto, card)
  local joined = redis.call('ZADD', page_key(delayed_key, n), unpack(sorted, 2 * from - 1, 2 * upto))
  redis.call('ZADD', delayed_key, 'LT', sorted[2 * from - 1], PAGE .. n)
  return joined, card + joined
end

-- Puts the sorted {due, id, ...} of the default group (none delayed already, none due before the
-- bound of the last page, whose number last is: add_default keeps those plain) into pages. They
-- join the last page while it has room; those due up to its last job join it when it has not (it is
-- split then: split_page), and those after open pages of their own (open_pages), as the jobs of a
-- queue without pages do: jobs due a fixed delay after now fill one page, then the next. Returns
-- the jobs added. A ZCARD, a ZADD and the mark's ZADD LT, or the new pages' writes; a split reads
-- the page once.
local function add_paged(delayed_key, sorted, last)
  local count = #sorted / 2
  if not last then return open_pages(delayed_key, sorted, 1, count) end
  local key = page_key(delayed_key, last)
  local card = redis.call('ZCARD', key)
  if card + count <= PAGE_SIZE then
    return (join_page(delayed_key, last, sorted, 1, count, card))
  end
  local tail = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
  local upto = 0
  while upto < count and sorted[2 * upto + 1] <= tail do upto = upto + 1 end
  local added = 0
  if upto > 0 then
    local joined, size = join_page(delayed_key, last, sorted, 1, upto, card)
    split_page(delayed_key, last, size)
    added = joined
  end
  if upto < count then added = added + open_pages(delayed_key, sorted, upto + 1, count) end
  return added
end

-- Delays the jobs of scored ({due, id, ...}) due before below as plain members of the delayed zset
-- (none when below is nil); returns the others ({due, id, ...}), or nil when there are none.
local function keep_plain(delayed_key, scored, below)
  local any_plain, all_plain = false, true
  for j = 1, #scored, 2 do
    if below and scored[j] < below then any_plain = true else all_plain = false end
  end
  if not any_plain then return scored end
  if all_plain then
    call_in_chunks('ZADD', delayed_key, scored)
    return nil
  end
  local plain, rest = {}, {}
  for j = 1, #scored, 2 do
    local list = scored[j] < below and plain or rest
    list[#list + 1] = scored[j]
    list[#list + 1] = scored[j + 1]
  end
  call_in_chunks('ZADD', delayed_key, plain)
  return rest
end

-- Delays the jobs of scored ({due, id, ...}, due times as numbers) of the default group: those due
-- within NEAR_MS of now, or before the last page's bound, as plain members of the delayed zset (the
-- index read only when a job is due later than NEAR_MS), the rest into pages, sorted by due time
-- (a publish's usually are already: then no table is built), at most 1000 jobs per add_paged
-- (unpack's limit). Returns the jobs paged.
local function add_default(delayed_key, scored, now)
  scored = keep_plain(delayed_key, scored, now and now + NEAR_MS)
  if not scored then return 0 end
  -- Pages take only jobs at or after the last page's bound (due in publish order, as a fixed delay
  -- gives them): a job due among the earlier pages stays a plain member, since placing jobs that
  -- come in no order costs a page lookup, a ZCARD and a split every few jobs (twice the Redis time
  -- of a publish) for the bytes pages save.
  local last_page = redis.call('ZRANGE', page_index(delayed_key), -1, -1, 'WITHSCORES')
  local last = last_page[1]
  if last then
    scored = keep_plain(delayed_key, scored, tonumber(last_page[2]))
    if not scored then return 0 end
  end
  local in_order = true
  for j = 3, #scored, 2 do
    if scored[j] < scored[j - 2] then in_order = false; break end
  end
  if in_order and #scored <= 2000 then return add_paged(delayed_key, scored, last) end
  local order = {}
  for j = 1, #scored, 2 do order[#order + 1] = { scored[j], scored[j + 1] } end
  if not in_order then table.sort(order, function(a, b) return a[1] < b[1] end) end
  local added = 0
  for from = 1, #order, 1000 do
    local sorted = {}
    for j = from, math.min(from + 999, #order) do
      sorted[#sorted + 1] = order[j][1]
      sorted[#sorted + 1] = order[j][2]
    end
    added = added + add_paged(delayed_key, sorted, last)
    last = redis.call('ZRANGE', page_index(delayed_key), -1, -1)[1]
  end
  return added
end

-- Delays jobs by group: by_group maps a group ('' the default group) to its {due, id, due, id, ...},
-- groups lists the groups of by_group in order. A job of a group delayed already gets its new due
-- time; a job of the default group must not be delayed already (remove_delayed it first). One ZADD
-- per group, the default group's jobs by page (add_paged), then one ZADD of the marks and one
-- HINCRBY for the whole call. O(n log N) for n jobs.
local function add_delayed_groups(delayed_key, by_group, groups, now)
  local marks, jobs_added = {}, 0
  for _, g in ipairs(groups) do
    local scored = by_group[g]
    if #scored > 0 and g == '' then
      jobs_added = jobs_added + add_default(delayed_key, scored, now)
    elseif #scored > 0 then
      local added = call_in_chunks('ZADD', group_delayed(delayed_key, g), scored)
      jobs_added = jobs_added + added
      if added * 2 < #scored then
        -- a job moved: its old due time may have been the group's earliest
        rescore_mark(delayed_key, g)
      else
        local earliest = scored[1]
        for i = 3, #scored, 2 do if scored[i] < earliest then earliest = scored[i] end end
        marks[#marks + 1] = earliest
        marks[#marks + 1] = MARK .. g
      end
    end
  end
  if jobs_added > 0 then redis.call('HINCRBY', delayed_counts(delayed_key), 'jobs', jobs_added) end
  if #marks > 0 then
    -- LT: an existing mark moves only to an earlier time
    local new_marks = call_in_chunks('ZADD', delayed_key, marks, 'LT')
    if new_marks > 0 then redis.call('HINCRBY', delayed_counts(delayed_key), 'marks', new_marks) end
  end
end

-- Delays the jobs of scored ({due, id, due, id, ...}) in group g ('' or nil: the default group).
local function add_delayed(delayed_key, g, scored, now)
  add_delayed_groups(delayed_key, { [g or ''] = scored }, { g or '' }, now)
end

-- Delays id, a job of the default group whose record has no due time to find it by (a record
-- rewritten by hand): a member of the delayed zset itself, found and moved without one. O(log N).
local function add_unpaged(delayed_key, due, id)
  redis.call('ZADD', delayed_key, due, id)
end

-- Takes id out of the delayed jobs, wherever it waits: due is the due time it was delayed until
-- (its record's; nil when unknown: then only a group's zset and the delayed zset itself are looked
-- in), its group read from groups_key (nil: not looked for) only when it is in no page. Returns whether it was delayed.
-- O(log N).
local function remove_delayed(delayed_key, groups_key, id, due)
  if due then
    local n = page_of(delayed_key, due)
    if n and redis.call('ZREM', page_key(delayed_key, n), id) == 1 then
      redis.call('HINCRBY', delayed_counts(delayed_key), 'jobs', -1)
      rescore_page(delayed_key, n)
      return true
    end
  end
  if redis.call('ZREM', delayed_key, id) == 1 then return true end
  local g = groups_key and redis.call('HGET', groups_key, id)
  if not g or redis.call('ZREM', group_delayed(delayed_key, g), id) == 0 then return false end
  redis.call('HINCRBY', delayed_counts(delayed_key), 'jobs', -1)
  rescore_mark(delayed_key, g)
  return true
end

-- The due time id is delayed until (a string, as ZSCORE gives it), or false when it is not delayed;
-- due as for remove_delayed. O(log N).
local function delayed_score(delayed_key, groups_key, id, due)
  if due then
    local n = page_of(delayed_key, due)
    local score = n and redis.call('ZSCORE', page_key(delayed_key, n), id)
    if score then return score end
  end
  local score = redis.call('ZSCORE', delayed_key, id)
  if score then return score end
  local g = groups_key and redis.call('HGET', groups_key, id)
  return g and redis.call('ZSCORE', group_delayed(delayed_key, g), id) or false
end

-- The due times of ids (false for one not delayed), groups[i] the group of ids[i] (false or nil:
-- the default group), recs[i] its record (false or nil when gone: its due time finds its page). A group's zset
-- has jobs exactly while its mark is in the delayed zset: one ZMSCORE of the ids and of their
-- groups' marks, then one of a group's zset only for a group marked; the default group's ids by
-- due time, per page range met: two index lookups and one ZMSCORE. O(#ids log N), at most 1000 ids.
local function delayed_scores(delayed_key, ids, groups, recs)
  local probe, marked, of_group, paged = {}, {}, {}, {}
  for i, id in ipairs(ids) do
    probe[i] = id
    local own = groups[i]
    if own then
      if not of_group[own] then
        of_group[own] = {}
        marked[#marked + 1] = own
      end
      local at = of_group[own]
      at[#at + 1] = i
    elseif recs[i] then
      paged[#paged + 1] = i
    end
  end
  for j, own in ipairs(marked) do probe[#ids + j] = MARK .. own end
  local scores = redis.call('ZMSCORE', delayed_key, unpack(probe))
  for j, own in ipairs(marked) do
    if scores[#ids + j] then
      local at, members = of_group[own], {}
      for m, i in ipairs(at) do members[m] = ids[i] end
      local in_group = redis.call('ZMSCORE', group_delayed(delayed_key, own), unpack(members))
      for m, i in ipairs(at) do scores[i] = scores[i] or in_group[m] end
    end
  end
  if #paged > 0 and redis.call('EXISTS', page_index(delayed_key)) == 1 then
    local dues, known = {}, {}
    for _, i in ipairs(paged) do
      dues[i] = record_due(recs[i])
      if dues[i] then known[#known + 1] = i end
    end
    paged = known
    table.sort(paged, function(a, b) return dues[a] < dues[b] end)
    local at = 1
    while at <= #paged do
      local d = dues[paged[at]]
      local n = page_of(delayed_key, d)
      local _, limit = page_after(delayed_key, d)
      local upto = at
      while upto < #paged and (limit == nil or dues[paged[upto + 1]] < limit) do upto = upto + 1 end
      if n then
        local members = {}
        for m = at, upto do members[#members + 1] = ids[paged[m]] end
        local in_page = redis.call('ZMSCORE', page_key(delayed_key, n), unpack(members))
        for m = at, upto do scores[paged[m]] = scores[paged[m]] or in_page[m - at + 1] end
      end
      at = upto + 1
    end
  end
  return scores
end

-- Takes up to most jobs due by time out of zset set, earliest first. Returns their ids and the due
-- time of the first job left (nil when none is left). One ZRANGE and one ZREMRANGEBYRANK: O(log N + m).
local function take_head(set, time, most)
  -- one past the most: the first not taken is the zset's next earliest
  local range = redis.call('ZRANGE', set, 0, most, 'WITHSCORES')
  local ids, next_due = {}, nil
  for j = 1, #range, 2 do
    if #ids == most or tonumber(range[j + 1]) > time then
      next_due = range[j + 1]
      break
    end
    ids[#ids + 1] = range[j]
  end
  if #ids > 0 then redis.call('ZREMRANGEBYRANK', set, 0, #ids - 1) end
  return ids, next_due
end

-- What a take leaves to settle: the marks to rescore (heads: {due, mark, ...}), the marks to remove
-- (emptied), the emptied pages' numbers, and the jobs taken out of group zsets and pages (total).
local function new_take()
  return { heads = {}, emptied = {}, pages = {}, total = 0 }
end

-- A take from the zset of mark (page n's, or a group's when n is nil) took count jobs and left
-- next_due as its earliest (nil: the zset is empty now).
local function took(take, mark, count, next_due, n)
  take.total = take.total + count
  if next_due then
    take.heads[#take.heads + 1] = next_due
    take.heads[#take.heads + 1] = mark
  else
    take.emptied[#take.emptied + 1] = mark
    if n then take.pages[#take.pages + 1] = n end
  end
end

-- After a take: rescores the marks that have jobs left, removes the others (and the index entries
-- of the emptied pages), and counts the jobs taken.
local function settle_take(delayed_key, take)
  call_in_chunks('ZADD', delayed_key, take.heads, 'XX')
  local counts = delayed_counts(delayed_key)
  if take.total > 0 then redis.call('HINCRBY', counts, 'jobs', -take.total) end
  local removed = call_in_chunks('ZREM', delayed_key, take.emptied)
  if removed > 0 then redis.call('HINCRBY', counts, 'marks', -removed) end
  call_in_chunks('ZREM', page_index(delayed_key), take.pages)
end

-- Takes, from each group of gs, up to most jobs due by time (epoch ms) out of its zset, earliest
-- first, and rescores the marks. Returns the ids taken of each group, in the order of gs. Per
-- group one ZRANGE and one ZREMRANGEBYRANK, then one ZADD, one ZREM and one HMGET/HINCRBY pair
-- for all: O(log N + m) per group for m taken.
local function take_due_of_groups(delayed_key, gs, time, most)
  local taken, take = {}, new_take()
  for i, g in ipairs(gs) do
    local ids, next_due = take_head(group_delayed(delayed_key, g), time, most)
    took(take, MARK .. g, #ids, next_due)
    taken[i] = ids
  end
  settle_take(delayed_key, take)
  return taken
end

-- Takes up to most jobs due by time out of the pages ns (in the order of their marks, which is the
-- order of their ranges), earliest first: the first page's due jobs, then the next's, so the
-- default group's jobs leave in due order. Returns the ids taken. Per page met one ZRANGE and one
-- ZREMRANGEBYRANK, then a few commands for all: O(log N + m) per page for m taken.
local function take_due_of_pages(delayed_key, ns, time, most)
  local taken, take = {}, new_take()
  for _, n in ipairs(ns) do
    if #taken >= most then break end
    local ids, next_due = take_head(page_key(delayed_key, n), time, most - #taken)
    for _, id in ipairs(ids) do taken[#taken + 1] = id end
    took(take, PAGE .. n, #ids, next_due, n)
  end
  settle_take(delayed_key, take)
  return taken
end

-- Takes up to most of the default group's jobs due by time, earliest first: the plain ids of the
-- delayed zset (plain: {id, due, ...} as ZRANGEBYSCORE ... WITHSCORES gives them, due by time, in
-- order) merged with the jobs of the pages ns (in the order of their marks, so of their ranges).
-- Returns the ids taken, in due order. A page is read (up to most + 1 jobs) only when the merge
-- reaches it; then one ZREM of the plain ids, and per page read one ZREMRANGEBYRANK: O(log N + m)
-- per page for m taken.
local function take_due_of_default(delayed_key, plain, ns, time, most)
  local taken, plain_taken, take = {}, {}, new_take()
  local at, range, pos, from_page = 0, nil, 1, 0
  local pi = 1
  -- ends the page read: its jobs taken leave it, its mark follows its next job or goes with it
  local function close_page()
    if range == nil then return end
    local n = ns[at]
    if from_page > 0 then redis.call('ZREMRANGEBYRANK', page_key(delayed_key, n), 0, from_page - 1) end
    took(take, PAGE .. n, from_page, range[2 * from_page + 2], n)
    range = nil
  end
  local function open_page()
    close_page()
    at = at + 1
    if at <= #ns then
      range = redis.call('ZRANGE', page_key(delayed_key, ns[at]), 0, most, 'WITHSCORES')
      pos, from_page = 1, 0
    end
  end
  open_page()
  while #taken < most do
    local page_due = range and range[2 * pos] and tonumber(range[2 * pos])
    if page_due and page_due > time then page_due = nil end
    local plain_due = plain[2 * pi] and tonumber(plain[2 * pi])
    if range and not range[2 * pos] and at < #ns then
      -- this page emptied: the next one's jobs come after it
      open_page()
    elseif page_due and (not plain_due or page_due <= plain_due) then
      taken[#taken + 1] = range[2 * pos - 1]
      pos, from_page = pos + 1, from_page + 1
    elseif plain_due then
      taken[#taken + 1] = plain[2 * pi - 1]
      plain_taken[#plain_taken + 1] = plain[2 * pi - 1]
      pi = pi + 1
    else
      break
    end
  end
  close_page()
  call_in_chunks('ZREM', delayed_key, plain_taken)
  settle_take(delayed_key, take)
  return taken
end

-- The number of delayed jobs, of every group. O(1).
local function delayed_count(delayed_key)
  local counts = redis.call('HMGET', delayed_counts(delayed_key), 'jobs', 'marks')
  return redis.call('ZCARD', delayed_key) + tonumber(counts[1] or '0') - tonumber(counts[2] or '0')
end
