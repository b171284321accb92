-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" BIGSERIAL NOT NULL,
    "workspaceId" INTEGER,
    "livemode" BOOLEAN NOT NULL,
    "action" TEXT NOT NULL,
    "actorType" TEXT NOT NULL,
    "actorUserId" INTEGER,
    "actor" TEXT,
    "objectType" TEXT,
    "objectId" TEXT,
    "clientAddress" TEXT,
    "userAgent" TEXT,
    "requestId" TEXT,
    "details" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AuditEvent_workspaceId_createdAt_id_idx" ON "AuditEvent"("workspaceId", "createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "AuditEvent" ADD CONSTRAINT "AuditEvent_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Written by hand (the Prisma schema language has no triggers nor CHECK
-- constraints). The audit trail is append-only: the database itself refuses
-- to change or remove a row, whoever asks (the services, the CLI, a psql
-- session), row by row (UPDATE, DELETE) and all at once (TRUNCATE). Only a
-- superuser who switches triggers off (session_replication_role = replica, or
-- ALTER TABLE ... DISABLE TRIGGER) gets past it, and Cowrie never does.
--
-- The migration tool sends a script one statement at a time, split at every
-- semicolon (comments included), so the function's body is an escaped string
-- whose semicolons are written \073.
CREATE FUNCTION "audit_event_refuse_change"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  RAISE EXCEPTION ''the audit trail is append-only: % on "AuditEvent" is refused'', TG_OP
    USING ERRCODE = ''insufficient_privilege''\073
END\073
';

CREATE TRIGGER "AuditEvent_append_only" BEFORE UPDATE OR DELETE ON "AuditEvent"
  FOR EACH ROW EXECUTE FUNCTION "audit_event_refuse_change"();

CREATE TRIGGER "AuditEvent_no_truncate" BEFORE TRUNCATE ON "AuditEvent"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_refuse_change"();

ALTER TABLE "AuditEvent" ADD CONSTRAINT "AuditEvent_actor_type_known" CHECK ("actorType" IN ('user', 'api_key', 'operator', 'anonymous'));
