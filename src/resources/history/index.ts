export { changedFields, scheduledChangeOf, timelineEntry, type ScheduledChangeJson, type TimelineEntry, type WireNames } from './history.serializer.js';
export { historyRoutes } from './history.routes.js';
export { type HistoryItem, type HistorySubject } from './history.queries.js';
