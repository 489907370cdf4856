import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import { errorMessage, fieldError } from '../api/errors.ts';
import { useProjectPath } from '../shell/session.ts';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { Notice } from '../ui/Feedback.tsx';
import { Checkbox, Field, Input, Select } from '../ui/Field.tsx';
import type { PropertyGroup } from './types.ts';

const TYPES = ['String', 'Numeric', 'Boolean', 'DateTime', 'Object', 'Array'].map((value) => ({ value, label: value }));

interface Row {
  name: string;
  property_type: string;
  is_required: boolean;
}

/** A new schema property group (name, description, typed properties), handed back once created. */
export function NewPropertyGroup({ onCreated }: { onCreated: (group: PropertyGroup) => void }) {
  const path = useProjectPath();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [rows, setRows] = useState<Row[]>([{ name: '', property_type: 'String', is_required: false }]);
  const create = useMutation({
    mutationFn: () =>
      api.post<PropertyGroup>(path('schema_property_groups/'), {
        name: name.trim(),
        description,
        properties: rows.filter((row) => row.name.trim() !== '').map((row) => ({ ...row, name: row.name.trim() })),
      }),
    onSuccess: (group) => {
      setOpen(false);
      setName('');
      setDescription('');
      setRows([{ name: '', property_type: 'String', is_required: false }]);
      onCreated(group);
    },
  });
  const setRow = (index: number, changes: Partial<Row>) => setRows(rows.map((row, i) => (i === index ? { ...row, ...changes } : row)));
  const placed = ['name', 'description'].some((field) => fieldError(create.error, field));
  return (
    <>
      <Button onClick={() => setOpen(true)}>New property group</Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        size="lg"
        title="New property group"
        footer={
          <>
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button variant="primary" disabled={name.trim() === ''} loading={create.isPending} onClick={() => create.mutate()}>
              Create and attach
            </Button>
          </>
        }
      >
        <div className="stack">
          <Field label="Group name" error={fieldError(create.error, 'name')}>
            {(control) => <Input {...control} value={name} onChange={(event) => setName(event.target.value)} placeholder="Order" />}
          </Field>
          <Field label="Group description" error={fieldError(create.error, 'description')}>
            {(control) => <Input {...control} value={description} onChange={(event) => setDescription(event.target.value)} />}
          </Field>
          {rows.map((row, index) => (
            <div className="choice-row" key={index}>
              <Input aria-label={`Property ${index + 1}: name`} className="mono" value={row.name} placeholder="order_total" onChange={(event) => setRow(index, { name: event.target.value })} />
              <Select aria-label={`Property ${index + 1}: type`} options={TYPES} value={row.property_type} onChange={(event) => setRow(index, { property_type: event.target.value })} />
              <Checkbox label="Required" checked={row.is_required} onChange={(event) => setRow(index, { is_required: event.target.checked })} />
              <Button size="sm" variant="ghost" aria-label={`Remove property ${index + 1}`} disabled={rows.length === 1} onClick={() => setRows(rows.filter((_, i) => i !== index))}>
                ×
              </Button>
            </div>
          ))}
          <div>
            <Button size="sm" onClick={() => setRows([...rows, { name: '', property_type: 'String', is_required: false }])}>
              + Add property
            </Button>
          </div>
          {create.isError && !placed ? <Notice tone="error">{errorMessage(create.error)}</Notice> : null}
        </div>
      </Dialog>
    </>
  );
}
