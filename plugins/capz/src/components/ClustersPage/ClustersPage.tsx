import { useApi } from '@backstage/frontend-plugin-api';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import useAsync from 'react-use/esm/useAsync';
import { ManagementClusterStatus } from '@internal/plugin-capz-common';
import { capzApiRef } from '../../api/CapzApi';

function StatusChip({ status }: { status: ManagementClusterStatus }) {
  if (status.state === 'connected') {
    return <Chip color="success" size="small" label={`Connected · ${status.version}`} />;
  }
  if (status.state === 'unreachable') {
    return <Chip color="error" size="small" label="Unreachable" title={status.message} />;
  }
  return <Chip size="small" label="Checking…" />;
}

/** The clusters page. For now it lists the configured management clusters and whether the backend reaches them. */
export function ClustersPage() {
  const api = useApi(capzApiRef);
  const { value, loading, error } = useAsync(() => api.listManagementClusters(), [api]);

  return (
    // The page title (h1) comes from the plugin header that PageBlueprint renders.
    <Box sx={{ p: 3 }}>
      {loading && <CircularProgress aria-label="Loading management clusters" />}
      {error && (
        <Alert severity="error">Could not load management clusters: {error.message}</Alert>
      )}
      {value && value.items.length === 0 && (
        <Alert severity="info">
          No management cluster is configured. Add one under capz.managementClusters in app-config.yaml.
        </Alert>
      )}
      {value && value.items.length > 0 && (
        <>
          <Typography variant="h6" component="h2">
            Management clusters
          </Typography>
          <List aria-label="Management clusters">
            {value.items.map(c => (
              <ListItem key={c.name} secondaryAction={<StatusChip status={c.status} />}>
                <ListItemText
                  primary={c.title ?? c.name}
                  secondary={
                    c.status.state === 'unreachable'
                      ? `${c.name} · ${c.authMethod} · ${c.status.message}`
                      : `${c.name} · ${c.authMethod}${c.url ? ` · ${c.url}` : ''}`
                  }
                />
              </ListItem>
            ))}
          </List>
        </>
      )}
    </Box>
  );
}
